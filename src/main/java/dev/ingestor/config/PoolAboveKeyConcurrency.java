package dev.ingestor.config;

import com.zaxxer.hikari.HikariDataSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * Every request of one key in flight may hold a database connection (an item batch holds one for the whole
 * batch), so the pool must be larger than {@code ingestor.http.limits.max-concurrent-per-key}: then one key,
 * however busy, leaves connections to the other keys, the stage workers, the outbox relay and housekeeping.
 * Checked on every connection pool of the app before its first connection; when it does not hold, the app
 * refuses to start, naming both properties.
 */
@Component
class PoolAboveKeyConcurrency implements BeanPostProcessor {

    static final String POOL_SIZE = "spring.datasource.hikari.maximum-pool-size";
    static final String PER_KEY = "ingestor.http.limits.max-concurrent-per-key";
    /** The former size of the embedded database's pool, deprecated; still read over {@link #POOL_SIZE} when set. */
    static final String FORMER_POOL_SIZE = "ingestor.embedded.postgres.pool-size";

    private final int perKey;
    private final Integer formerPoolSize;

    @Autowired
    public PoolAboveKeyConcurrency(Environment environment) {
        // read from the environment, not from the HttpLimits bean: a post-processor is made before other beans
        this(Binder.get(environment).bind(PER_KEY, Integer.class)
                .orElseGet(() -> new HttpLimits().getMaxConcurrentPerKey()),
                Binder.get(environment).bind(FORMER_POOL_SIZE, Integer.class).orElse(null));
    }

    PoolAboveKeyConcurrency(int perKey, Integer formerPoolSize) {
        this.perKey = perKey;
        this.formerPoolSize = formerPoolSize;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof HikariDataSource pool) {
            check(pool.getMaximumPoolSize());
        }
        return bean;
    }

    void check(int poolSize) {
        if (poolSize <= perKey) {
            // the property that set this size: the deprecated one, when a deployment still sets it (it wins)
            String setBy = formerPoolSize != null && formerPoolSize == poolSize
                    ? FORMER_POOL_SIZE + "=" + poolSize + " (deprecated, read over " + POOL_SIZE + ": remove it)"
                    : POOL_SIZE + "=" + poolSize;
            throw new IllegalStateException(setBy + " is not above " + PER_KEY + "=" + perKey
                    + ": the requests of one API key could hold every database connection, and other keys, the stage"
                    + " workers and the outbox relay would wait for one. Set " + POOL_SIZE + " above " + PER_KEY
                    + " (by the stage workers, the relay and what other keys need; docs/operations.md, Database connections), or"
                    + " lower " + PER_KEY);
        }
    }
}
