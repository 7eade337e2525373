package dev.ingestor.job;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.Objects;

import org.apache.camel.CamelContext;
import org.apache.camel.spring.boot.CamelContextConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The months of the search by part of a file name ({@code job_file_name}, V22, {@link JobSearch}): this month's
 * partition and the next two are made before any job of them arrives, at start before any route runs and by
 * routes/housekeeping.camel.yaml at each of its runs. A name that arrives in a month not made yet waits in the
 * default partition and moves into its month when that month is made. Made at start, so that after an instance
 * stopped for months no intake waits for a month being made (a name routed to the default partition while its
 * month is attached fails its job's insert). The months before the oldest kept job's are dropped once empty, after
 * each retention run.
 */
@Component
public class FileNameMonths implements CamelContextConfiguration {

    /** Months made ahead of the current one (UTC): a housekeeping run may fail, or the instance stop, for weeks. */
    static final int AHEAD = 2;

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.housekeeping");

    private final JdbcTemplate jdbc;

    public FileNameMonths(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** Makes the months that are missing (in one transaction); returns their partitions' names. */
    public List<String> prepare() {
        try {
            List<String> made = jdbc.queryForList("SELECT job_file_name_month((now() AT TIME ZONE 'UTC'"
                    + " + make_interval(months => m)) AT TIME ZONE 'UTC') FROM generate_series(0, ?) AS m",
                    String.class, AHEAD).stream().filter(Objects::nonNull).toList();
            if (!made.isEmpty()) {
                LOG.info("made the file-name search's months {}", made);
            }
            return made;
        } catch (DataAccessException e) {
            // a lock not given within its timeout, the database away: names wait in the default partition meanwhile
            LOG.warn("could not make the file-name search's months ahead ({}); the next housekeeping run tries again",
                    e.getMostSpecificCause().getMessage());
            return List.of();
        }
    }

    /**
     * Drops the months before the oldest kept job's month that hold no name: retention emptied them for good, and
     * every month kept is one more partition for a new connection's first search to read and for retention's delete
     * of names to open (V23, which never drops this month or the one before). Returns their partitions' names.
     */
    public List<String> dropEmptied() {
        try {
            // read apart, so that no lock on import_job is held while job_file_name is locked
            OffsetDateTime oldest = jdbc.queryForObject("SELECT coalesce(min(received_at), now()) FROM import_job",
                    OffsetDateTime.class);
            List<String> dropped = jdbc.queryForList("SELECT job_file_name_drop_months(?)", String.class, oldest);
            if (!dropped.isEmpty()) {
                LOG.info("dropped the file-name search's months {}: no kept job is of them", dropped);
            }
            return dropped;
        } catch (DataAccessException e) {
            // a lock not given within its timeout, the database away: the empty months cost a little meanwhile
            LOG.warn("could not drop the file-name search's emptied months ({}); the next housekeeping run tries"
                    + " again", e.getMostSpecificCause().getMessage());
            return List.of();
        }
    }

    @Override
    public void beforeApplicationStart(CamelContext camelContext) {
        prepare();
    }

    @Override
    public void afterApplicationStart(CamelContext camelContext) {
        // housekeeping makes them at each of its runs
    }
}
