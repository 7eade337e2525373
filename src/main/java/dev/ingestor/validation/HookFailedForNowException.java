package dev.ingestor.validation;

import dev.ingestor.failure.TryAgainLaterException;
import dev.ingestor.logging.SafeText;

/**
 * A supplier's hook failed in a way that passes: what it calls out to is away (a connection refused or lost, a
 * time-out, a host not found), or its route went away while a job's records were read (a reload). That is no
 * verdict on the record, which would be quarantined for good and its effect lost: the stage tries the job again,
 * and once its redeliveries are spent the job is FAILED with a dead letter that a replay resumes.
 */
class HookFailedForNowException extends TryAgainLaterException {

    HookFailedForNowException(String hook, long line, Throwable cause) {
        super("hook " + hook + " failed at line " + line + " with a failure that passes (" + cause.getClass().getName()
                + ": " + SafeText.of(String.valueOf(cause.getMessage()), RecordHook.MAX_MESSAGE)
                + "); the job is tried again", cause);
    }
}
