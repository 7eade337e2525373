package dev.ingestor.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.ingestor.failure.TransientFailures;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.PluginHelper;
import org.apache.camel.support.ResourceHelper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SupplierHooksTest {

    private DefaultCamelContext camel;
    private SupplierHooks hooks;

    @BeforeEach
    void start() throws Exception {
        camel = new DefaultCamelContext();
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                // Splits "SKU-1/7" into sku and quantity; throws for a ref without a slash.
                from("direct:map-SPLITCO").process(e -> {
                    @SuppressWarnings("unchecked")
                    Map<String, String> fields = e.getMessage().getBody(Map.class);
                    String[] parts = fields.remove("article").split("/");
                    if (parts.length != 2) {
                        throw new IllegalArgumentException("article has no quantity\n");
                    }
                    fields.put("sku", parts[0]);
                    fields.put("quantity", parts[1]);
                    fields.put("supplier", e.getMessage().getHeader("IngestorSupplier", String.class));
                });
                from("direct:map-STRINGCO").setBody(constant("not a map"));
                // a hook route written with an option of its direct endpoint
                from("direct:map-QUERYCO?timeout=5000").setBody(constant("not a map"));
                // a hook that looks each record up elsewhere, which is away
                from("direct:map-LOOKUPCO").routeId("lookup-hook").process(e -> {
                    throw new java.net.ConnectException("the lookup service refused the connection");
                });
                // a hook whose own reading fails for this record, the same way every time
                from("direct:map-READCO").process(e -> {
                    throw new java.io.UncheckedIOException(new java.io.FileNotFoundException("no price list for it"));
                });
            }
        });
        camel.start();
        hooks = new SupplierHooks(camel);
    }

    @AfterEach
    void stop() {
        camel.stop();
    }

    @Test
    void recordsPassThroughTheSuppliersHook() {
        List<RawRecord> out = readAll(
                hooks.wrap("SPLITCO", UUID.randomUUID(), reader(record(1, "SKU-1/7"), record(2, "SKU-2"))));

        assertThat(out.get(0).isBroken()).isFalse();
        assertThat(out.get(0).fields()).containsEntry("sku", "SKU-1").containsEntry("quantity", "7")
                .containsEntry("supplier", "SPLITCO").doesNotContainKey("article");
        assertThat(out.get(1).problem()).startsWith("hook map-SPLITCO failed: article has no quantity")
                .doesNotContain("\n");
        assertThat(out.get(1).line()).isEqualTo(2);
    }

    @Test
    void aHookThatReturnsSomethingElseThanAMapBreaksTheRecord() {
        List<RawRecord> out = readAll(hooks.wrap("STRINGCO", null, reader(record(1, "x"))));

        assertThat(out.get(0).problem()).isEqualTo("hook map-STRINGCO returned a String, not a map of fields");
    }

    /** direct:map-QUERYCO?timeout=5000 consumes what is sent to direct:map-QUERYCO: its supplier's hook. */
    @Test
    void aHookRouteWhoseEndpointHasOptionsIsTheSuppliersHook() {
        List<RawRecord> out = readAll(hooks.wrap("QUERYCO", null, reader(record(1, "x"))));

        assertThat(out.get(0).problem()).isEqualTo("hook map-QUERYCO returned a String, not a map of fields");
        assertThat(hooks.wrap("QUERY", null, reader(record(1, "x"))).next().isBroken()).isFalse();
    }

    @Test
    void aSupplierWithoutAHookReadsUnchanged() {
        RecordReader plain = reader(record(1, "SKU-1/7"));

        assertThat(hooks.wrap("ACME", UUID.randomUUID(), plain)).isSameAs(plain);
    }

    @Test
    void aHookAddedOrRemovedWhileRunningIsSeenByTheNextJob() throws Exception {
        RecordReader plain = reader(record(1, "SKU-1/7"));
        assertThat(hooks.wrap("LATECO", UUID.randomUUID(), plain)).isSameAs(plain);

        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:map-LATECO").routeId("late-hook").setBody(constant("not a map"));
            }
        });
        assertThat(readAll(hooks.wrap("LATECO", UUID.randomUUID(), reader(record(1, "x")))).get(0).problem())
                .isEqualTo("hook map-LATECO returned a String, not a map of fields");

        camel.getRouteController().stopRoute("late-hook");
        camel.removeRoute("late-hook");
        // an endpoint may outlive its route (anything that sent to it made it again): no route consumes it, no hook
        camel.getEndpoint("direct:map-LATECO");
        RecordReader again = reader(record(1, "SKU-1/7"));
        assertThat(hooks.wrap("LATECO", UUID.randomUUID(), again)).isSameAs(again);
    }

    /**
     * A reload takes a hook route away before it adds it again, and an edit that does not load leaves it away: while
     * the file it was loaded from is there, the records wait (a failure the stage tries again) rather than be read
     * without the hook. A hook whose file was deleted is gone on purpose.
     */
    @Test
    void aHookAwayWhileItsFileIsThereIsWaitedForAndOneWhoseFileWasDeletedIsGone(@TempDir Path folder)
            throws Exception {
        Path file = Files.writeString(folder.resolve("RELOADCO.camel.yaml"), """
                - route:
                    id: reloaded-hook
                    from:
                      uri: direct:map-RELOADCO
                      steps:
                        - setBody:
                            constant: "not a map"
                """);
        PluginHelper.getRoutesLoader(camel).loadRoutes(ResourceHelper.resolveResource(camel, "file:" + file));
        assertThat(readAll(hooks.wrap("RELOADCO", UUID.randomUUID(), reader(record(1, "x")))).get(0).problem())
                .isEqualTo("hook map-RELOADCO returned a String, not a map of fields");

        // a reload: the route is taken away before it is added again
        camel.getRouteController().stopRoute("reloaded-hook");
        camel.removeRoute("reloaded-hook");
        assertThatThrownBy(() -> hooks.wrap("RELOADCO", UUID.randomUUID(), reader(record(1, "x"))))
                .isInstanceOf(HookNotRunningException.class)
                .hasMessageContaining("direct:map-RELOADCO").hasMessageContaining(file.toString())
                .satisfies(e -> assertThat(TransientFailures.isTransient(e)).as("tried again").isTrue());

        Files.delete(file);
        RecordReader plain = reader(record(1, "SKU-1/7"));
        assertThat(hooks.wrap("RELOADCO", UUID.randomUUID(), plain)).as("taken away on purpose").isSameAs(plain);
    }

    /**
     * A hook whose file did not load (an edit with a mistake: Camel has taken its routes away) is waited for as long as
     * the file names it, never read around; one taken out of its file (which a reload loads without it) is waited for
     * a while only: then the supplier's jobs go on without it.
     */
    @Test
    void aHookAwayIsWaitedForWhileItsFileNamesItAndGoneOnceTheFileNoLongerDoes(@TempDir Path folder)
            throws Exception {
        SupplierHooks briefly = new SupplierHooks(camel, java.time.Duration.ofMillis(200));
        Path file = Files.writeString(folder.resolve("EDITCO.camel.yaml"), """
                - route:
                    id: edited-hook
                    from:
                      uri: direct:map-EDITCO
                      steps:
                        - setBody:
                            constant: "not a map"
                """);
        PluginHelper.getRoutesLoader(camel).loadRoutes(ResourceHelper.resolveResource(camel, "file:" + file));
        assertThat(briefly.hook("EDITCO", null)).isPresent();
        // an edit that does not load: the route is away, the file still names the hook
        camel.getRouteController().stopRoute("edited-hook");
        camel.removeRoute("edited-hook");
        Files.writeString(file, Files.readString(file).replace("constant:", "constant: [unclosed"));
        assertThatThrownBy(() -> briefly.hook("EDITCO", null)).isInstanceOf(HookNotRunningException.class);
        Thread.sleep(300);
        assertThatThrownBy(() -> briefly.hook("EDITCO", null)).as("still named by its file")
                .isInstanceOf(HookNotRunningException.class);

        // the hook taken out of the file
        Files.writeString(file, """
                - route:
                    id: edited-other
                    from:
                      uri: direct:map-EDITCO2
                      steps:
                        - log: "no hook of EDITCO here"
                """);
        assertThat(briefly.hook("EDITCO", null)).as("no longer named, away longer than a reload takes").isEmpty();
    }

    /** A hook is named by its endpoint as a word of its own, in each way a route file may write it. */
    @Test
    void aRouteFileNamesAHookByItsEndpoint(@TempDir Path folder) throws Exception {
        for (String from : List.of("uri: direct:map-ACME", "uri: \"direct://map-ACME?timeout=5\"",
                "uri: direct\n      parameters:\n        name: map-ACME")) {
            Path file = Files.writeString(folder.resolve("ACME.camel.yaml"), "- route:\n    from:\n      " + from);
            assertThat(SupplierHooks.namesHook(ResourceHelper.resolveResource(camel, "file:" + file), "ACME"))
                    .as(from).isTrue();
        }
        for (String from : List.of("uri: direct:map-ACME2", "uri: direct:remap-ACME", "uri: direct:map-ACME-EU",
                "# uri: direct:map-ACME", "uri: direct:other # was map-ACME")) {
            Path file = Files.writeString(folder.resolve("ACME.camel.yaml"), "- route:\n    from:\n      " + from);
            assertThat(SupplierHooks.namesHook(ResourceHelper.resolveResource(camel, "file:" + file), "ACME"))
                    .as(from).isFalse();
        }
    }

    /**
     * A hook's failure that passes (what it calls out to is away, its route went away while the records were read) is
     * no verdict on the record: the job is tried again, no record quarantined for it.
     */
    @Test
    void aHookFailureThatPassesFailsTheReadNotTheRecord() throws Exception {
        // an I/O failure in general is a verdict on the record: it may fail the same way every time
        assertThat(readAll(hooks.wrap("READCO", UUID.randomUUID(), reader(record(1, "x")))).get(0).problem())
                .startsWith("hook map-READCO failed:").contains("no price list for it");

        RecordReader looked = hooks.wrap("LOOKUPCO", UUID.randomUUID(), reader(record(1, "SKU-1/7")));
        assertThatThrownBy(() -> readAll(looked)).isInstanceOf(HookFailedForNowException.class)
                .hasMessageContaining("hook map-LOOKUPCO failed at line 1")
                .hasMessageContaining("the lookup service refused the connection")
                .satisfies(e -> assertThat(TransientFailures.isTransient(e)).isTrue());

        // the route goes away between two records (a reload): the direct endpoint waits for it, then gives up
        camel.getEndpoint("direct:map-SPLITCO", org.apache.camel.component.direct.DirectEndpoint.class).setTimeout(200);
        RecordReader split = hooks.wrap("SPLITCO", UUID.randomUUID(),
                reader(record(1, "SKU-1/7"), record(2, "SKU-2/1")));
        assertThat(split.next().isBroken()).isFalse();
        camel.getRouteController().stopRoute(camel.getRoutes().stream()
                .filter(r -> r.getEndpoint().getEndpointUri().equals("direct://map-SPLITCO")).findFirst().orElseThrow()
                .getRouteId());
        assertThatThrownBy(split::next).isInstanceOf(HookFailedForNowException.class)
                .hasMessageContaining("line 2");
    }

    private static RawRecord record(long line, String article) {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("article", article);
        return new RawRecord(line - 1, line, fields, null);
    }

    private static List<RawRecord> readAll(RecordReader reader) {
        List<RawRecord> out = new ArrayList<>();
        reader.forEachRemaining(out::add);
        reader.close();
        return out;
    }

    private static RecordReader reader(RawRecord... records) {
        return RecordReader.of(List.of(records).iterator());
    }
}
