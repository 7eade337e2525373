package dev.ingestor.source;

import dev.ingestor.intake.FileNameRule;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The symbolic links intake refuses to follow, each reported once: a link stays where it is and is seen again
 * at every poll, and a log line per poll would bury everything else.
 */
@Component
public class LinkRefusals {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.intake");
    /** Bounds the memory of what was reported; past it the oldest reasons are simply reported again. */
    private static final int MAX_REMEMBERED = 10_000;

    private final Set<String> reported = ConcurrentHashMap.newKeySet();

    /** Logs {@code what} (a path or remote entry) with why it is refused, the first time only. */
    public void refuse(String what, String why) {
        if (reported.size() >= MAX_REMEMBERED) {
            reported.clear();
        }
        if (reported.add(what)) {
            LOG.warn("intake refused path={} reason=\"{}\"; it is left in place and not reported again", FileNameRule.printable(what), why);
        }
    }

    /** {@code what} is no link any more: a link there later is reported again. */
    public void forget(String what) {
        reported.remove(what);
    }

    boolean isReported(String what) {
        return reported.contains(what);
    }
}
