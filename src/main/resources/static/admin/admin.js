// The admin page: a client of /api/v1/admin. The admin key stays in this tab's sessionStorage.
// Supplier names, file names and reasons come from outside: every text goes into the page as textContent,
// never as HTML.
'use strict';
const STATES = ['RECEIVED', 'VALIDATING', 'PROCESSING', 'COMPLETED', 'COMPLETED_WITH_ERRORS', 'REJECTED', 'FAILED'];
const SVG = 'http://www.w3.org/2000/svg';
const PAGE_SIZE = 25;
const NO_KEY = 'enter the admin key';
const $ = (id) => document.getElementById(id);
// the page each list shows, so that live refresh redraws the page the operator is on, not the first: the lists are
// paged by cursor (the API's 'next' of the page before), so each list keeps the cursors of the pages walked to, the
// first page's being null; previous goes back one, next goes on with the page's 'next'
const cursors = { jobs: [null], failed: [null], dead: [null], intake: [null], records: [null] };

/** The size and, past the first page, the cursor of the page list {@code name} is on, as query parameters. */
function paging(name, extra) {
  const params = new URLSearchParams({ size: PAGE_SIZE, ...(extra || {}) });
  const at = cursors[name][cursors[name].length - 1];
  if (at) { params.set('after', at); }
  return params;
}
// the job the operator asked to see, and the one the job view shows (its id, state, supplier and file name): the
// view's buttons act on what is shown, never on a job whose answer has not come yet
let selectedJob = null;
let shownJob = null;
let lookedUpKey = null;
let timer = null;
// the filter of the job list as last submitted: what the fields hold before Search is pressed is not applied
let jobFilter = {};
/** A request the server has not answered within this is given up, and says so. */
const ANSWER_WITHIN_MS = 10000;

// each list and the job view draws only the answer to the latest request for it: an answer that arrives after a
// later request's (a slow refresh, then a click) would draw over what the operator asked for last
const asked = {};
function ask(name) {
  const n = (asked[name] || 0) + 1;
  asked[name] = n;
  return () => asked[name] === n;
}

function key() { return sessionStorage.getItem('ingestor-admin-key') || ''; }

async function call(method, url) {
  const controller = new AbortController();
  const timeout = setTimeout(() => controller.abort(), ANSWER_WITHIN_MS);
  try {
    const response = await fetch(url, { method, headers: { 'X-Api-Key': key() }, signal: controller.signal });
    const body = await response.json().catch(() => ({}));
    if (controller.signal.aborted) { throw new Error('aborted'); }
    if (!response.ok) {
      const refused = new Error(body.detail || body.title || ('HTTP ' + response.status));
      refused.status = response.status;
      throw refused;
    }
    return body;
  } catch (e) {
    if (!controller.signal.aborted) { throw e; }
    const late = new Error('no answer within ' + (ANSWER_WITHIN_MS / 1000) + ' s');
    late.timedOut = true;
    throw late;
  } finally {
    clearTimeout(timeout);
  }
}

function api(method, path) { return call(method, '/api/v1/admin' + path); }

function text(value) { return value === null || value === undefined ? '' : String(value); }

function element(tag, value, className) {
  const e = document.createElement(tag);
  e.textContent = text(value);
  if (className) { e.className = className; }
  return e;
}

function cell(row, value, className) { return row.appendChild(element('td', value, className)); }

function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }

// the status line keeps the last action's answer (or error) until the next one; the refresh time has its own place
function say(message) { $('status').textContent = message; }

function button(label, className, onClick) {
  const b = element('button', label, className);
  b.type = 'button';
  b.addEventListener('click', (event) => { event.stopPropagation(); onClick(); });
  return b;
}

/** Every action asks first; its answer (or the problem's detail) goes to the status line. */
// A confirmation quotes names from outside (file names): line breaks and bidirectional controls could make the
// question read as something else, so they are shown as '?'.
function plain(question) {
  return question.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '?');
}

async function act(asked, method, path) {
  const question = plain(asked);
  if (!window.confirm(question)) {
    say('cancelled: ' + question);
    return;
  }
  try {
    const result = await api(method, path);
    const answer = result.result || (result.jobs !== undefined ? result.jobs + ' job(s) sent back' : 'done');
    say(question + ' → ' + answer);
  } catch (e) {
    // an action unanswered may still have been taken: the lists, refreshed below, say whether it was
    say(question + ' → ' + (e.timedOut ? e.message + ' (it may still be taken: see the lists)' : 'refused: ' + e.message));
  }
  await refresh();
}

// one refresh at a time: asked for while one runs (a click, the timer), it runs once more when that one ends, so that
// a slow server never has refreshes piling up on it and an answer is never drawn over by an older one
let refreshing = null;
let refreshAgain = false;

function refresh() {
  if (refreshing) {
    refreshAgain = true;
    return refreshing;
  }
  refreshing = (async () => {
    try {
      do {
        refreshAgain = false;
        await refreshOnce();
      } while (refreshAgain);
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

async function refreshOnce() {
  if (!key()) { say(NO_KEY); return; }
  try {
    const overview = await api('GET', '/overview');
    const intake = await api('GET', '/intake-failures?' + paging('intake'));
    const throughput = await api('GET', '/throughput?minutes=60');
    // the alarm is for what is new: the list keeps every failure until its retention, dealt with or not
    renderTiles(overview, throughput.items.reduce((sum, minute) => sum + minute.intakeFailures, 0));
    renderSftpLeaders(overview);
    renderRetrySuppliers(overview);
    renderThroughput(throughput);
    await loadJobs();
    renderFailed(await api('GET', '/failed-jobs?' + paging('failed')));
    renderDead(await api('GET', '/dead-letters?' + paging('dead')));
    renderIntake(intake);
    if (selectedJob) { await showJob(selectedJob); }
    $('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
    // an error of an earlier refresh, or the request for a key, is over once a refresh succeeds
    if ($('status').textContent.startsWith('error: ') || $('status').textContent === NO_KEY) { say(''); }
  } catch (e) {
    say('error: ' + e.message);
  }
}

function tile(label, count, alarm, id) {
  const t = element('div', '', 'tile' + (alarm && count > 0 ? ' alarm' : ''));
  t.id = 'tile-' + id;
  t.appendChild(element('div', count, 'count'));
  t.appendChild(element('div', label, 'label'));
  $('tiles').appendChild(t);
}

/** Failures first: what needs an operator, then the rest of the states, then the outbox backlog. */
function renderTiles(overview, intakeFailures) {
  clear($('tiles'));
  tile('failed jobs', overview.states.FAILED || 0, true, 'FAILED');
  tile('dead letters waiting', overview.deadLettersWaiting, true, 'dead');
  tile('intake failures, last hour', intakeFailures, true, 'intake');
  STATES.filter((s) => s !== 'FAILED').forEach((s) => tile(s, overview.states[s] || 0, false, s));
  tile('outbox backlog', overview.outboxPending, false, 'outbox');
}

/** Which instance polls each supplier's SFTP server (one at a time; none during a takeover). */
function renderSftpLeaders(overview) {
  const line = $('sftp-leaders');
  clear(line);
  const leaders = overview.sftpLeaders || [];
  if (leaders.length === 0) { return; }
  line.appendChild(element('span', 'SFTP polled by: '));
  leaders.forEach((lease, i) => {
    const who = element('span', lease.routeId.replace(/^sftp-/, '') + ' \u2192 ' + lease.owner, 'leader');
    who.dataset.route = lease.routeId;
    who.title = 'since ' + lease.since + ', lease until ' + lease.expiresAt;
    if (i > 0) { line.appendChild(document.createTextNode(', ')); }
    line.appendChild(who);
  });
}

function renderRetrySuppliers(overview) {
  const box = $('retry-suppliers');
  clear(box);
  Object.entries(overview.suppliers).forEach(([supplier, counts]) => {
    if (counts.FAILED > 0) {
      // every job FAILED when the button is pressed is sent back: the count is the overview's, a moment old
      const b = button('Retry all ' + counts.FAILED + ' failed of ' + supplier, 'retry-supplier', () =>
        act('Retry every failed job of ' + supplier + ' (' + counts.FAILED + ' when last counted)?', 'POST',
          '/suppliers/' + encodeURIComponent(supplier) + '/retry-failed'));
      b.dataset.supplier = supplier;
      box.appendChild(b);
    }
  });
}

const JOB_SERIES = [
  { field: 'completed', label: 'completed', color: '#1b7a3d' },
  { field: 'completedWithErrors', label: 'completed with errors', color: '#e0a030' },
  { field: 'rejected', label: 'rejected', color: '#8e5ec4' },
  { field: 'failed', label: 'failed', color: '#b3261e' },
  { field: 'intakeFailures', label: 'intake failures', color: '#6b7280' },
];
const RECORD_SERIES = [
  { field: 'accepted', label: 'accepted', color: '#1b7a3d' },
  { field: 'updated', label: 'updated', color: '#2a6fdb' },
  { field: 'replayed', label: 'replayed', color: '#9aa5b1' },
  { field: 'quarantined', label: 'quarantined', color: '#b3261e' },
];

function renderThroughput(throughput) {
  stacked($('chart-jobs'), $('legend-jobs'), throughput.items, JOB_SERIES, 'received');
  stacked($('chart-records'), $('legend-records'), throughput.items, RECORD_SERIES, null);
}

function svg(tag, attributes) {
  const e = document.createElementNS(SVG, tag);
  Object.entries(attributes).forEach(([k, v]) => e.setAttribute(k, String(v)));
  return e;
}

/** Stacked bars per minute, and an optional line (jobs received) over them; the scale starts at 0. */
function stacked(chart, legend, items, series, lineField) {
  const width = 600;
  const height = 160;
  const left = 30;
  const bottom = 16;
  chart.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
  clear(chart);
  clear(legend);
  const totals = items.map((m) => series.reduce((sum, s) => sum + m[s.field], 0));
  const max = Math.max(1, ...totals, ...(lineField ? items.map((m) => m[lineField]) : []));
  const plot = height - bottom - 4;
  const step = (width - left) / Math.max(1, items.length);
  const y = (v) => height - bottom - (v / max) * plot;
  chart.appendChild(svg('line', { x1: left, y1: height - bottom, x2: width, y2: height - bottom, stroke: '#9aa5b1' }));
  [max, Math.round(max / 2)].forEach((v) => {
    const label = svg('text', { x: 2, y: y(v) + 4, 'font-size': 10, fill: '#555' });
    label.textContent = String(v);
    chart.appendChild(label);
  });
  items.forEach((m, i) => {
    let base = 0;
    series.forEach((s) => {
      const v = m[s.field];
      if (v > 0) {
        const bar = svg('rect', { x: left + i * step + 1, y: y(base + v), width: Math.max(1, step - 2),
          height: y(base) - y(base + v), fill: s.color, class: 'bar' });
        const tip = svg('title', {});
        tip.textContent = new Date(m.minute).toLocaleTimeString() + ' ' + s.label + ': ' + v;
        bar.appendChild(tip);
        chart.appendChild(bar);
        base += v;
      }
    });
    if (i % 15 === 0) {
      const label = svg('text', { x: left + i * step, y: height - 3, 'font-size': 10, fill: '#555' });
      label.textContent = new Date(m.minute).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
      chart.appendChild(label);
    }
  });
  const all = lineField ? [...series, { field: lineField, label: 'received', color: '#1d2329' }] : series;
  if (lineField) {
    const points = items.map((m, i) => (left + i * step + step / 2) + ',' + y(m[lineField])).join(' ');
    chart.appendChild(svg('polyline', { points, fill: 'none', stroke: '#1d2329', 'stroke-width': 1.5, class: 'line' }));
  }
  all.forEach((s) => {
    const total = items.reduce((sum, m) => sum + m[s.field], 0);
    const entry = element('span', s.label + ' ' + total);
    entry.style.setProperty('--c', s.color);
    entry.dataset.series = s.field;
    legend.appendChild(entry);
  });
}

/**
 * Previous / next and where we are; {@code load} draws the list at the new page. The lists answer whether more
 * follow, not how many there are in all: a count of every row would cost a read of a year of them at each refresh.
 */
function pager(id, list, name, load) {
  const box = $(id);
  clear(box);
  const walked = cursors[name];
  // a second click before the list is drawn again would walk a page further than the page shown
  const go = (step) => { prev.disabled = true; next.disabled = true; step(); load(); };
  const prev = button('‹ previous', 'prev', () => go(() => { if (walked.length > 1) { walked.pop(); } }));
  prev.disabled = walked.length <= 1;
  const next = button('next ›', 'next', () => go(() => { if (list.next) { walked.push(list.next); } }));
  next.disabled = !list.more;
  box.appendChild(prev);
  box.appendChild(element('span', 'page ' + walked.length + ' · ' + (list.more ? 'more follow' : 'last page'), 'where'));
  box.appendChild(next);
}

function reloadSoon(promise) { promise.catch((e) => say('error: ' + e.message)); }

async function loadJobs() {
  const current = ask('jobs');
  const page = await api('GET', '/jobs?' + paging('jobs', jobFilter));
  if (!current()) { return; }
  const body = $('jobs').tBodies[0];
  clear(body);
  page.items.forEach((job) => {
    const row = body.insertRow();
    row.className = 'clickable';
    row.dataset.job = job.id;
    cell(row, job.id);
    cell(row, job.supplier);
    cell(row, job.state, 'state-' + job.state);
    cell(row, job.fileName, 'file');
    cell(row, job.source);
    cell(row, job.progress.total ? job.progress.recordsDone + ' / ' + job.progress.total : '');
    cell(row, job.error, 'reason');
    cell(row, job.receivedAt);
    row.addEventListener('click', () => reloadSoon(showJob(job.id)));
  });
  pager('jobs-pager', page, 'jobs', () => reloadSoon(loadJobs()));
}

function renderFailed(failed) {
  const body = $('failed').tBodies[0];
  clear(body);
  $('failed-empty').hidden = failed.items.length > 0 || cursors.failed.length > 1;
  failed.items.forEach((job) => {
    const row = body.insertRow();
    row.className = 'clickable';
    row.dataset.job = job.id;
    cell(row, job.id);
    cell(row, job.supplier);
    cell(row, job.fileName, 'file');
    cell(row, job.stage);
    cell(row, job.exception);
    cell(row, job.message || job.error, 'reason');
    cell(row, job.attempts, 'num');
    cell(row, job.failedAt);
    const actions = cell(row, '');
    // sent with the state this row shows: a job that has finished since the list was drawn is left as it is
    const failedJob = { id: job.id, state: 'FAILED', supplier: job.supplier, fileName: job.fileName };
    actions.appendChild(button('Re-validate', 'revalidate', () => jobAction('Re-validate', 'revalidate', failedJob)));
    actions.appendChild(button('Re-process', 'reprocess', () => jobAction('Re-process', 'reprocess', failedJob)));
    row.addEventListener('click', () => reloadSoon(showJob(job.id)));
  });
  pager('failed-pager', failed, 'failed', () => reloadSoon(refresh()));
}

function replayButton(letter) {
  // an event Kafka refused for good: its effect stands and nothing is sent round; the letter is only acknowledged
  if (letter.stage === 'relay') {
    return button('Acknowledge', 'replay', () =>
      act('Acknowledge dead letter ' + letter.id + ' (its event is not sent again)?', 'POST', '/dead-letters/' + letter.id + '/replay'));
  }
  return button('Replay', 'replay', () =>
    act('Replay dead letter ' + letter.id + ' (its job back to the stage that failed)?', 'POST', '/dead-letters/' + letter.id + '/replay'));
}

function renderDead(letters) {
  const body = $('dead').tBodies[0];
  clear(body);
  letters.items.forEach((d) => {
    const row = body.insertRow();
    row.className = 'clickable';
    row.dataset.letter = d.id;
    cell(row, d.id, 'num');
    cell(row, d.jobId);
    cell(row, d.supplier);
    cell(row, d.stage);
    cell(row, d.exception);
    cell(row, d.message, 'reason');
    cell(row, d.attempts, 'num');
    cell(row, d.createdAt);
    cell(row, d.replayedAt ? d.replayedAt + ' by ' + d.replayedBy : '', 'replayed');
    const actions = cell(row, '');
    if (!d.replayedAt) { actions.appendChild(replayButton(d)); }
    if (d.jobId) { row.addEventListener('click', () => reloadSoon(showJob(d.jobId))); }
  });
  pager('dead-pager', letters, 'dead', () => reloadSoon(refresh()));
}

function renderIntake(failures) {
  const body = $('intake').tBodies[0];
  clear(body);
  failures.items.forEach((f) => {
    const row = body.insertRow();
    row.dataset.failure = f.id;
    cell(row, f.id, 'num');
    cell(row, f.supplier);
    cell(row, f.source);
    cell(row, f.fileName, 'file');
    cell(row, f.outcome, f.outcome === 'failed' ? 'bad' : '');
    cell(row, f.reason, 'reason');
    cell(row, f.location || 'nothing kept', 'reason');
    // a row may count repeated refusals of one kind: the first and last time, and how many
    cell(row, f.count > 1 ? f.occurredAt + ' to ' + f.lastOccurredAt + ' (' + f.count + ' times)' : f.occurredAt);
    cell(row, f.retriedAt ? f.retriedAt + ' by ' + f.retriedBy : '', 'retried');
    const actions = cell(row, '');
    // only a dropped file in .failed/ can go back; the API refuses the rest with a reason
    if (f.outcome === 'failed' && !f.retriedAt && f.location) {
      actions.appendChild(button('Retry', 'retry', () =>
        act('Move ' + f.fileName + ' back into the inbox of ' + f.supplier + '?', 'POST', '/intake-failures/' + f.id + '/retry')));
    }
  });
  pager('intake-pager', failures, 'intake', () => reloadSoon(refresh()));
}

function field(list, name, value) {
  list.appendChild(element('dt', name));
  list.appendChild(element('dd', value));
}

/** A re-validate or re-process of {@code job} as the operator saw it: named in the question, its state expected. */
function jobAction(label, action, job) {
  return act(label + ' job ' + job.id + ' (' + text(job.fileName) + ' of ' + job.supplier + ', ' + job.state + ')?',
    'POST', '/jobs/' + job.id + '/' + action + '?expectedState=' + encodeURIComponent(job.state));
}

function closeJob() {
  ask('job');
  selectedJob = null;
  shownJob = null;
  $('detail').hidden = true;
}

async function showJob(id) {
  const current = ask('job');
  if (selectedJob !== id) {
    cursors.records = [null];
    // the job shown until now is not the one asked for: its buttons go with it until the new one is drawn
    shownJob = null;
    $('detail').hidden = true;
  }
  selectedJob = id;
  let detail;
  try {
    detail = await api('GET', '/jobs/' + id);
  } catch (e) {
    if (e.status === 404 && current()) {
      closeJob();
      say('job ' + id + ' is gone (retention deleted it, or it never was)');
      return;
    }
    throw e;
  }
  const records = await call('GET', '/api/v1/jobs/' + encodeURIComponent(id) + '/records?'
    + paging('records'));
  if (!current()) { return; }
  const job = detail.job;
  shownJob = { id, state: job.state, supplier: job.supplier, fileName: job.fileName };
  $('detail').hidden = false;
  $('detail-id').textContent = id;
  const total = job.progress.total;
  const done = job.progress.recordsDone;
  $('detail-bar').style.width = (total > 0 ? Math.min(100, (100 * done) / total) : 0) + '%';
  $('detail-progress').textContent = total > 0 ? done + ' of ' + total + ' records processed' : 'no records counted yet';
  const fields = $('detail-fields');
  clear(fields);
  field(fields, 'supplier', job.supplier);
  field(fields, 'state', job.state);
  field(fields, 'file', job.fileName);
  field(fields, 'source', job.source);
  field(fields, 'submitted by', job.submittedBy);
  field(fields, 'size', job.size + ' bytes');
  field(fields, 'key', job.key);
  field(fields, 'received', job.receivedAt);
  field(fields, 'updated', job.updatedAt);
  field(fields, 'reason', job.error);
  const counts = job.counts || {};
  field(fields, 'records', 'total ' + text(counts.total) + ' · accepted ' + text(counts.accepted) + ' · updated '
    + text(counts.updated) + ' · replayed ' + text(counts.replayed) + ' · quarantined ' + text(counts.quarantined));
  field(fields, 'duplicates', job.duplicateCount);
  if (job.requestKey) { field(fields, 'request key', job.requestKey); }
  const body = $('detail-records').tBodies[0];
  clear(body);
  (records.items || []).forEach((r) => {
    const row = body.insertRow();
    cell(row, r.line); cell(row, r.sourceId); cell(row, r.reason, 'reason');
  });
  pager('records-pager', records, 'records', () => reloadSoon(showJob(selectedJob)));
  const letters = $('detail-letters').tBodies[0];
  clear(letters);
  detail.deadLetters.forEach((d) => {
    const row = letters.insertRow();
    cell(row, d.id); cell(row, d.stage); cell(row, d.exception); cell(row, d.message, 'reason'); cell(row, d.attempts, 'num');
    cell(row, d.replayedAt ? d.replayedAt + ' by ' + d.replayedBy : '');
    const actions = cell(row, '');
    if (!d.replayedAt) { actions.appendChild(replayButton(d)); }
  });
  // events Kafka refused for good (a file of records too large for the topic may have thousands): seen in one click
  $('acknowledge-refused').hidden = !detail.deadLetters.some((d) => d.stage === 'relay' && !d.replayedAt);
  if (detail.earlierDeadLetters) {
    const row = letters.insertRow();
    const note = cell(row, 'only the latest ' + detail.deadLetters.length + ' are shown: earlier ones are in Dead letters');
    note.colSpan = 7;
  }
}

async function lookUpKey() {
  const supplier = $('key-supplier').value.trim();
  const value = $('key-value').value.trim();
  const result = $('key-result');
  clear(result);
  $('key-release').hidden = true;
  lookedUpKey = null;
  try {
    // ?key=: a key may hold '/', '%' or be '..', which no path segment carries
    const k = await api('GET', '/idempotency-keys/' + encodeURIComponent(supplier) + '?key=' + encodeURIComponent(value));
    lookedUpKey = k;
    ['supplier', 'key', 'state', 'status', 'jobId', 'owner', 'leaseUntil', 'createdAt', 'completedAt', 'expiresAt', 'fingerprint']
      .forEach((name) => field(result, name, k[name]));
    $('key-release').hidden = k.state !== 'IN_PROGRESS';
  } catch (e) {
    say('key lookup: ' + e.message);
  }
}

// a record's fields as "name: value" lines, in the order they were read
function fieldsText(fields) {
  return Object.entries(fields || {}).map(([name, value]) => name + ': ' + text(value)).join('\n');
}

async function previewSample() {
  const supplier = $('preview-supplier').value.trim();
  const file = $('preview-file').files[0];
  if (!supplier || !file) { return; }
  const records = $('preview-records').value || '20';
  const response = await fetch('/api/v1/admin/suppliers/' + encodeURIComponent(supplier) + '/preview?records='
      + encodeURIComponent(records), { method: 'POST', headers: { 'X-Api-Key': key(),
      'Content-Type': 'application/octet-stream' }, body: file });
  const preview = await response.json().catch(() => ({}));
  const body = $('preview').querySelector('tbody');
  clear(body);
  if (!response.ok) {
    $('preview-summary').textContent = 'preview refused: ' + (preview.detail || preview.title || ('HTTP ' + response.status));
    return;
  }
  const shown = preview.records.length;
  const quarantined = preview.records.filter((r) => r.outcome !== 'VALID').length;
  $('preview-summary').textContent = preview.supplier + ' (' + preview.format + '): '
      + (preview.fileOutcome ? 'the file would be ' + preview.fileOutcome + ': ' + preview.reason + '. ' : '')
      + shown + ' record(s) shown' + (preview.more ? ', more follow' : '') + ', ' + quarantined + ' would be quarantined';
  $('preview-summary').className = preview.fileOutcome || quarantined > 0 ? 'bad' : '';
  for (const r of preview.records) {
    const row = body.appendChild(document.createElement('tr'));
    cell(row, r.where);
    cell(row, fieldsText(r.supplierFields), 'fields-text');
    cell(row, fieldsText(r.record), 'fields-text');
    cell(row, r.outcome, r.outcome === 'VALID' ? 'state-COMPLETED' : 'bad');
    cell(row, r.reason, 'reason');
  }
}

function showTab(name) {
  document.querySelectorAll('.tabs button').forEach((b) => b.classList.toggle('active', b.dataset.tab === name));
  document.querySelectorAll('section.tab').forEach((s) => { s.hidden = s.id !== 'tab-' + name; });
}

// the next live refresh is due 3 s after the last one ended, however long that took
function schedule() {
  if (timer) { clearTimeout(timer); timer = null; }
  if ($('live').checked) {
    timer = setTimeout(async () => {
      timer = null;
      await refresh();
      schedule();
    }, 3000);
  }
}

STATES.forEach((s) => { const o = element('option', s); o.value = s; $('filter-state').appendChild(o); });
document.querySelectorAll('.tabs button').forEach((b) => b.addEventListener('click', () => showTab(b.dataset.tab)));
$('login').addEventListener('submit', (event) => {
  event.preventDefault();
  sessionStorage.setItem('ingestor-admin-key', $('key').value);
  refresh();
});
$('filter').addEventListener('submit', (event) => {
  event.preventDefault();
  jobFilter = {};
  if ($('search').value.trim()) { jobFilter.q = $('search').value.trim(); }
  if ($('filter-supplier').value.trim()) { jobFilter.supplier = $('filter-supplier').value.trim(); }
  if ($('filter-state').value) { jobFilter.state = $('filter-state').value; }
  cursors.jobs = [null];
  reloadSoon(loadJobs());
});
$('key-lookup').addEventListener('submit', (event) => { event.preventDefault(); lookUpKey(); });
$('preview-form').addEventListener('submit', (event) => {
  event.preventDefault();
  previewSample().catch((e) => { $('preview-summary').textContent = 'preview failed: ' + e.message; });
});
$('key-release').addEventListener('click', async () => {
  const k = lookedUpKey;
  // with the owner looked up: a retry that has taken the key over since runs on
  await act('Release Idempotency-Key ' + k.key + ' of ' + k.supplier + ' (held by ' + k.owner + ')?', 'DELETE',
    '/idempotency-keys/' + encodeURIComponent(k.supplier) + '?key=' + encodeURIComponent(k.key)
      + '&owner=' + encodeURIComponent(k.owner));
  // a released key is gone: the answer stays in the status line, the lookup is cleared
  clear($('key-result'));
  $('key-release').hidden = true;
});
$('revalidate').addEventListener('click', () => { if (shownJob) { jobAction('Re-validate', 'revalidate', shownJob); } });
$('reprocess').addEventListener('click', () => { if (shownJob) { jobAction('Re-process', 'reprocess', shownJob); } });
$('detail-close').addEventListener('click', closeJob);
$('acknowledge-refused').addEventListener('click', () => {
  if (shownJob) {
    act('Acknowledge every refused event of job ' + shownJob.id + ' (' + text(shownJob.fileName) + ' of '
      + shownJob.supplier + ')? Their effects stand; nothing is sent again.', 'POST',
      '/jobs/' + shownJob.id + '/acknowledge-refused-events');
  }
});
$('live').addEventListener('change', schedule);
schedule();
refresh();
