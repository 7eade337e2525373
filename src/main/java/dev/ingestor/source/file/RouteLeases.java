package dev.ingestor.source.file;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The lease rows of table {@code route_leader}: which instance runs a route that only one instance may run at a
 * time (the SFTP supplier routes). Every change is one statement in its own transaction, so the only lock is that
 * statement's row lock: no session-level lock, and PgBouncer in transaction mode keeps working. Expiry is judged by
 * the database's clock alone, so the instances' clocks need not agree.
 */
@Component
public class RouteLeases {

    /** One lease as operators see it. */
    public record Lease(String routeId, String owner, Instant since, Instant renewedAt, Instant expiresAt) {
    }

    private final JdbcTemplate jdbc;

    public RouteLeases(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Takes the lease on {@code routeId} for {@code length}, or renews it when this run ({@code token}) holds it
     * already. Taken only when no one holds it or its holder's lease ran out.
     *
     * @return null when this run holds the lease now (until at least {@code length} after the call began);
     *         otherwise the instance that holds it
     */
    String takeOrRenew(String routeId, String owner, UUID token, Duration length) {
        List<String> taken = jdbc.queryForList("""
                INSERT INTO route_leader AS l (route_id, owner, owner_token, since, renewed_at, expires_at)
                VALUES (?, ?, ?, now(), now(), now() + make_interval(secs => ?))
                ON CONFLICT (route_id) DO UPDATE SET owner = EXCLUDED.owner, owner_token = EXCLUDED.owner_token,
                    since = CASE WHEN l.owner_token = EXCLUDED.owner_token THEN l.since ELSE now() END,
                    renewed_at = now(), expires_at = EXCLUDED.expires_at
                WHERE l.owner_token = EXCLUDED.owner_token OR l.expires_at < now()
                RETURNING owner""", String.class, routeId, owner, token, length.toMillis() / 1000.0);
        if (!taken.isEmpty()) {
            return null;
        }
        List<String> holder = jdbc.queryForList("SELECT owner FROM route_leader WHERE route_id = ?", String.class,
                routeId);
        // gone between the two statements (given back): taken on the next try
        return holder.isEmpty() ? "nobody" : holder.get(0);
    }

    /** Gives the lease back at once, if this run still holds it. */
    boolean release(String routeId, UUID token) {
        return jdbc.update("DELETE FROM route_leader WHERE route_id = ? AND owner_token = ?", routeId, token) == 1;
    }

    /** Every lease held now (expired ones left out), by route. */
    public List<Lease> current() {
        return jdbc.query("SELECT route_id, owner, since, renewed_at, expires_at FROM route_leader"
                + " WHERE expires_at >= now() ORDER BY route_id",
                (rs, i) -> new Lease(rs.getString(1), rs.getString(2), rs.getTimestamp(3).toInstant(),
                        rs.getTimestamp(4).toInstant(), rs.getTimestamp(5).toInstant()));
    }
}
