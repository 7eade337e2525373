package dev.ingestor.validation;

import dev.ingestor.failure.TryAgainLaterException;

/**
 * A supplier's hook route is not running while the file it was loaded from is still there: a route reload is under
 * way, or the edited file does not load. Its records are not read without the hook (they would be applied as the
 * hook would not have them); the stage tries again, and once its redeliveries are spent the job is FAILED with a dead
 * letter that a replay resumes after the route is back.
 */
class HookNotRunningException extends TryAgainLaterException {

    HookNotRunningException(String supplier, String endpoint, String location) {
        super("the hook route of supplier " + supplier + " (" + endpoint + ") is not running while its file " + location
                + " is there: a reload is under way or the file does not load; its records wait for it");
    }
}
