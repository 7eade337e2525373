/**
 * Wakeups: a stage is woken when work for it is committed, instead of waiting for its next poll. The transactions
 * that make work notify a PostgreSQL channel (db/migration V19, {@link dev.ingestor.wakeup.WorkChannels}); one
 * {@link dev.ingestor.wakeup.NoticeListener} per instance LISTENs on its own connection and raises the
 * {@link dev.ingestor.wakeup.WorkSignals}; a polling route woken by them names {@link dev.ingestor.wakeup.WakeOnNotice}
 * as its scheduler. The routes' poll intervals stay as the safety net. The routes run on a schedule that nothing wakes
 * name {@link dev.ingestor.wakeup.PollsThroughErrors}, which runs them on after an Error.
 */
package dev.ingestor.wakeup;
