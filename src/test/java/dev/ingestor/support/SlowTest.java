package dev.ingestor.support;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;

/**
 * A test of the slow tier (JUnit tag {@code slow}): {@code ./mvnw test}, the inner loop, leaves it out;
 * {@code ./mvnw verify} runs it in the surefire execution {@code slow} (integration-test phase), after the fast tier.
 * Given to test classes whose run takes long on a two-core machine (a database stopped or killed, a server of their
 * own, a browser, many or large files) or that start application contexts of their own; a class named with
 * {@code -Dtest=...} runs whatever its tier.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Tag("slow")
public @interface SlowTest {
}
