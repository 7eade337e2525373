package dev.ingestor.source.file;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.ingestor.intake.FileNameRule;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The symbolic links intake refuses to follow, counted per poll and reported per folder and reason. A link
 * stays where it is and is seen again at every poll, so a line per link or per poll would bury everything
 * else: a poll counts what it refuses ({@link #beginPoll}, {@link #refuse}), and at its end ({@link #endPoll})
 * one WARN line per folder and reason gives the count and one example, only when the count differs from what
 * the same route's last poll reported. A folder with 5,000 standing links is reported once, and again when the
 * count changes; when none is left, one INFO line says so.
 *
 * <p>A poll's count is kept in its own thread (a route's poll lists, filters and reports in one thread). Memory
 * is bounded: one count and one example per folder and reason, at most {@link #MAX_FOLDERS_PER_POLL} folders
 * and reasons per poll (more are counted together), and what the last poll reported for at most
 * {@link #MAX_ROUTES} routes.
 */
@Component
class LinkRefusals {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.intake");
    /**
     * Folder and reason pairs one poll counts apart; refusals in further folders are counted under {@link
     * #FURTHER_FOLDERS}.
     */
    static final int MAX_FOLDERS_PER_POLL = 1_000;
    static final String FURTHER_FOLDERS = "(further folders)";
    /** Routes whose last report is kept; past it the least recently polled is forgotten, and reports again. */
    static final int MAX_ROUTES = 1_000;

    private final ThreadLocal<Map<Place, Tally>> poll = new ThreadLocal<>();
    /** Per route, the count its last report gave per folder and reason. */
    private final Map<String, Map<Place, Integer>> reported = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Map<Place, Integer>> eldest) {
            return size() > MAX_ROUTES;
        }
    };

    /** Where and why entries are refused. */
    private record Place(String folder, String reason) {
    }

    /** How many entries a poll refused for one place, and the first of them. */
    private static final class Tally {
        private final String example;
        private int count;

        private Tally(String example) {
            this.example = example;
        }
    }

    /** Starts counting the refusals of a poll in this thread. */
    public void beginPoll() {
        poll.set(new LinkedHashMap<>());
    }

    /**
     * Refuses the entry {@code name} in {@code folder}: counted for the poll under way in this thread, or, outside a
     * poll (a move refused on a worker thread), logged at once.
     */
    public void refuse(String folder, String reason, String name) {
        Map<Place, Tally> tallies = poll.get();
        if (tallies == null) {
            LOG.warn("intake refused entries=1 folder={} reason=\"{}\" example={}; it is left in place",
                    FileNameRule.printable(folder), reason, FileNameRule.printable(name));
            return;
        }
        Place place = new Place(folder, reason);
        String example = name;
        if (!tallies.containsKey(place) && tallies.size() >= MAX_FOLDERS_PER_POLL) {
            place = new Place(FURTHER_FOLDERS, reason);
            example = folder + "/" + name;
        }
        String first = example;
        tallies.computeIfAbsent(place, p -> new Tally(first)).count++;
    }

    /** A failed poll: what it counted is dropped, and the last report stands. */
    public void abandonPoll() {
        poll.remove();
    }

    /**
     * Ends the poll of {@code route} under way in this thread and reports each folder and reason whose count changed
     * since that route's last report. {@code complete} is false when the poll stopped at its limit of files and so
     * may not have seen every entry: then a count is reported only when it grew, and a place it did not see keeps
     * its count.
     */
    public void endPoll(String route, boolean complete) {
        Map<Place, Tally> tallies = poll.get();
        poll.remove();
        if (tallies == null) {
            return;
        }
        synchronized (reported) {
            Map<Place, Integer> before = reported.getOrDefault(route, Map.of());
            Map<Place, Integer> after = new HashMap<>();
            tallies.forEach((place, tally) -> {
                int last = before.getOrDefault(place, 0);
                int count = complete ? tally.count : Math.max(tally.count, last);
                after.put(place, count);
                if (count != last) {
                    LOG.warn(
                            "intake refused entries={} folder={} reason=\"{}\" example={} route={}; they are left in place,"
                                    + " and reported again when the count changes",
                            count, FileNameRule.printable(place.folder()),
                            place.reason(), FileNameRule.printable(tally.example), route);
                }
            });
            before.forEach((place, count) -> {
                if (!tallies.containsKey(place)) {
                    if (complete) {
                        LOG.info("intake refuses no entry any more in folder={} reason=\"{}\" route={}",
                                FileNameRule.printable(place.folder()), place.reason(), route);
                    } else {
                        after.put(place, count);
                    }
                }
            });
            if (after.isEmpty()) {
                reported.remove(route);
            } else {
                reported.put(route, after);
            }
        }
    }

    /** The count last reported for {@code route}, {@code folder} and {@code reason}; 0 when none. */
    int reported(String route, String folder, String reason) {
        synchronized (reported) {
            Map<Place, Integer> counts = reported.get(route);
            return counts == null ? 0 : counts.getOrDefault(new Place(folder, reason), 0);
        }
    }
}
