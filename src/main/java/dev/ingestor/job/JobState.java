package dev.ingestor.job;

import java.util.Collection;
import java.util.EnumSet;
import java.util.Set;

/**
 * The import job state machine (docs/design.md, Job states and record outcomes). The names are a published
 * contract (the job API, the admin API, the database's check constraint); every change of state is made by
 * {@link JobLifecycle}.
 * <p>
 * PROCESSING covers two moments told apart by the lease, not by a state of their own: a validated job waiting
 * for processing has no lease owner ({@link JobLifecycle#validated}), a job being processed has one.
 */
public enum JobState {
    RECEIVED, VALIDATING, PROCESSING, COMPLETED, COMPLETED_WITH_ERRORS, REJECTED, FAILED;

    /**
     * The states of a job at rest, that is finished: no worker owns it and none will take it unless an operator
     * sends it round again, so operators and retention may act on it.
     */
    public static final Set<JobState> AT_REST = Set
            .copyOf(EnumSet.of(COMPLETED, COMPLETED_WITH_ERRORS, REJECTED, FAILED));

    public boolean isAtRest() { return AT_REST.contains(this); }

    /** The names of {@code states} in declaration order, e.g. to bind as a SQL {@code text[]}. */
    public static String[] names(Collection<JobState> states) {
        EnumSet<JobState> ordered = EnumSet.noneOf(JobState.class);
        ordered.addAll(states);
        return ordered.stream().map(Enum::name).toArray(String[]::new);
    }
}
