package dev.ingestor.embedded;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.ingestor.config.IngestorProperties;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The embedded default: with no {@code spring.datasource.url}, a real PostgreSQL is started from the binaries
 * on the class path, its data kept under {@code ingestor.data-dir}. Setting a JDBC URL switches to a real
 * server and this configuration steps aside. The app logs in as a role of its own with a generated password
 * (see {@link EmbeddedPostgresServer}). Its pool is set by {@code spring.datasource.hikari.*}, as an external
 * server's is.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnExpression("'${spring.datasource.url:}'.isEmpty()")
@EnableConfigurationProperties(EmbeddedPostgresProperties.class)
class EmbeddedPostgresConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedPostgresConfiguration.class);

    @Bean(destroyMethod = "close")
    EmbeddedPostgres embeddedPostgres(IngestorProperties ingestor, EmbeddedPostgresProperties postgres)
            throws Exception {
        return EmbeddedPostgresServer.start(ingestor.getDataDir().resolve("postgres"), postgres.getPort());
    }

    @Bean
    DataSource dataSource(EmbeddedPostgres postgres, IngestorProperties ingestor, EmbeddedPostgresProperties properties,
            Environment environment) throws Exception {
        EmbeddedPostgresServer.Login login = EmbeddedPostgresServer.appLogin(postgres,
                ingestor.getDataDir().resolve("postgres"));
        HikariDataSource dataSource = new HikariDataSource();
        // spring.datasource.hikari.* (the pool's size among them) holds for the embedded database as for an external
        // one
        Binder.get(environment).bind("spring.datasource.hikari", Bindable.ofInstance(dataSource));
        dataSource.setPoolName("ingestor-embedded");
        dataSource.setJdbcUrl(login.jdbcUrl());
        dataSource.setUsername(login.username());
        dataSource.setPassword(login.password());
        Integer formerPoolSize = properties.poolSizeIfSet();
        if (formerPoolSize != null) {
            LOG.warn("ingestor.embedded.postgres.pool-size={} is deprecated and sizes the embedded database's pool over"
                    + " spring.datasource.hikari.maximum-pool-size={} until 1.0.0: set the size there and remove it",
                    formerPoolSize, dataSource.getMaximumPoolSize());
            dataSource.setMaximumPoolSize(formerPoolSize);
        }
        return dataSource;
    }
}
