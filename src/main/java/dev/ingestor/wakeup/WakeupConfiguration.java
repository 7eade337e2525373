package dev.ingestor.wakeup;

import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Scope;

/** The routes' wakeup scheduler, one instance per route that names {@code #wakeOnNotice}. */
@Configuration
class WakeupConfiguration {

    /** A prototype: Camel looks the scheduler up once per endpoint, and each needs its own. */
    @Bean
    @Scope(ConfigurableBeanFactory.SCOPE_PROTOTYPE)
    WakeOnNotice wakeOnNotice(WorkSignals signals) {
        return new WakeOnNotice(signals);
    }
}
