package io.weir.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.api.Output;
import io.weir.api.Processor;
import io.weir.api.Record;
import io.weir.dataflow.BadRecordException;
import io.weir.dataflow.Event;
import io.weir.dataflow.Operator;
import io.weir.fixtures.ExamplePlugin;
import io.weir.fixtures.OperatorHarness;
import io.weir.state.Timer;
import io.weir.state.TimerDomain;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loads the example operator ({@code examples/custom-operator}) as a user would: its source compiled
 * against the runtime's API into a jar in a plugins directory, then run through
 * {@link ProcessOperator}. The example's classes are not on this project's class path, so they can
 * only come from the jar.
 */
class PluginsTest {
    private static final String STEP = "pipeline.2.process";
    private static final Path EXAMPLE_SOURCES = Path.of("examples/custom-operator/src/main/java");

    @TempDir
    static Path temp;

    private static Path plugins;

    @BeforeAll
    static void buildThePluginJar() throws Exception {
        Path classes = Files.createDirectories(temp.resolve("classes"));
        Path helper = Files.createDirectories(temp.resolve("extra/com/example")).resolve("Helper.java");
        Files.writeString(helper, "package com.example;\n/** Not a processor. */\npublic class Helper {}\n");
        List<Path> sources;
        try (Stream<Path> files = Files.walk(EXAMPLE_SOURCES)) {
            sources = files.filter(p -> p.toString().endsWith(".java")).collect(Collectors.toList());
        }
        sources.add(helper);
        // A processor of text records, for a job whose source is format: string.
        Path shout = helper.resolveSibling("Shout.java");
        Files.writeString(
                shout,
                """
                package com.example;

                import io.weir.api.Output;
                import io.weir.api.Processor;
                import io.weir.api.ProcessorContext;
                import io.weir.api.Record;
                import java.util.Map;

                /** Emits {"text": the value in capitals} for a text value. */
                public class Shout implements Processor {
                    @Override
                    public void open(ProcessorContext context) {}

                    @Override
                    public void process(Record record, Output out) {
                        out.emit(Map.of("text", ((String) record.value()).toUpperCase()));
                    }
                }
                """);
        sources.add(shout);
        ExamplePlugin.compile(sources, classes);
        plugins = Files.createDirectories(temp.resolve("plugins"));
        ExamplePlugin.jar(classes, plugins.resolve("fraud-flag.jar"));
    }

    @Test
    void theExampleJobsCasesPassWithWeirTest() {
        weirTest("examples/custom-operator/job.yaml", "examples/custom-operator/job.cases.yaml", 2);
    }

    @Test
    void aProcessorOfTextRecordsGetsTheSourcesTextAndItsOutputCrossesARepartitionAsJson() throws Exception {
        Path job = Files.writeString(
                temp.resolve("shout.yaml"),
                """
                application: shout
                kafka: { bootstrap: localhost:9092 }
                pipeline:
                  - source: { topic: lines, format: string }
                  - process: { class: com.example.Shout }
                  - key-by: value.text
                  - sink: { topic: out, format: json }
                """);
        Path cases = Files.writeString(
                temp.resolve("shout.cases.yaml"),
                """
                cases:
                  - name: text in, objects out
                    input:
                      - { key: a, value: "not {json" }
                    expect:
                      out:
                        - { key: "NOT {JSON", value: { text: "NOT {JSON" } }
                """);
        weirTest(job.toString(), cases.toString(), 1);
    }

    /** Runs {@code weir test} with the plugin jar and expects {@code passed} cases to pass, none to fail. */
    private static void weirTest(String job, String cases, int passed) {
        java.io.StringWriter out = new java.io.StringWriter();
        picocli.CommandLine cli = io.weir.cli.WeirCommand.commandLine("test");
        cli.setOut(new java.io.PrintWriter(out));
        int exit = cli.execute("test", "--config", job, "--cases", cases, "--set", "processing.plugins=" + plugins);
        assertEquals(0, exit, out.toString());
        assertTrue(out.toString().contains(passed + " passed, 0 failed"), out.toString());
    }

    /** Where the example operator's jar is, for integration tests that run its job. */
    static Path pluginsDir() {
        return plugins;
    }

    @Test
    void theExampleOperatorRunsFromItsJarThroughTheRuntime() throws Exception {
        Plugins loaded = Plugins.load(plugins);
        Supplier<Operator> factory = loaded.processorFactory(
                STEP, "com.example.FraudFlag", Map.of("threshold", "1000", "max-orders", "2", "window", "1m"));
        OperatorHarness harness = new OperatorHarness(factory.get());

        Event big = harness.json("alice", "{\"id\":\"o1\",\"amount\":1500}");
        harness.process(
                "alice", Codecs.JSON.decode("{\"id\":\"o2\",\"amount\":5}".getBytes(StandardCharsets.UTF_8)), 10);
        Event third = harness.process(
                "alice", Codecs.JSON.decode("{\"id\":\"o3\",\"amount\":5}".getBytes(StandardCharsets.UTF_8)), 20);

        assertEquals(
                "{\"id\":\"o1\",\"amount\":1500,\"flagged\":true,\"reasons\":[\"amount 1500 is above 1000\"]}",
                new String(Json.encode(big.value()), StandardCharsets.UTF_8));
        assertEquals(
                "{\"id\":\"o3\",\"amount\":5,\"flagged\":true,\"reasons\":[\"3 orders within 60000 ms, more than 2\"]}",
                new String(Json.encode(third.value()), StandardCharsets.UTF_8));
        List<Timer> timers = harness.state.takeDueTimers(TimerDomain.EVENT_TIME, Long.MAX_VALUE);
        assertEquals(
                List.of(60_000L, 60_010L, 60_020L),
                timers.stream().map(Timer::timestamp).collect(Collectors.toList()));
        assertEquals(
                List.of("fraud-flag.jar"),
                loaded.jars().stream().map(p -> p.getFileName().toString()).collect(Collectors.toList()));
    }

    @Test
    void aBadOrderOfThePluginGoesToTheDeadLetterTopicNamingTheClass() throws Exception {
        Supplier<Operator> factory = Plugins.load(plugins).processorFactory(STEP, "com.example.FraudFlag", Map.of());
        OperatorHarness harness = new OperatorHarness(factory.get());

        BadRecordException e =
                assertThrows(BadRecordException.class, () -> harness.json("alice", "{\"amount\":\"lots\"}"));

        assertTrue(
                e.getMessage()
                        .startsWith(
                                "custom operator com.example.FraudFlag failed: java.lang.IllegalArgumentException: an order needs a numeric 'amount', was lots"),
                e.getMessage());
    }

    @Test
    void aWrongSettingFailsTheStartNamingTheClassAndTheSetting() {
        Plugins loaded = Plugins.load(plugins);

        // At the start, not in every task: one instance is opened with the step's settings there.
        Plugins.PluginException e = assertThrows(
                Plugins.PluginException.class,
                () -> loaded.processorFactory(STEP, "com.example.FraudFlag", Map.of("threshold", "a lot")));

        assertTrue(e.getMessage().contains("custom operator com.example.FraudFlag failed to open"), e.getMessage());
        assertTrue(
                e.getMessage().contains("setting 'threshold' is 'a lot', expected a number such as 0.5"),
                e.getMessage());
    }

    @Test
    void aMissingClassListsTheJarsSearched() {
        Plugins loaded = Plugins.load(plugins);

        Plugins.PluginException e = assertThrows(
                Plugins.PluginException.class, () -> loaded.processorFactory(STEP, "com.example.Missing", Map.of()));

        assertEquals(
                STEP + ": class com.example.Missing not found in the plugin jars [fraud-flag.jar] of "
                        + plugins.toAbsolutePath() + " nor on the runtime's class path",
                e.getMessage());
    }

    @Test
    void aClassThatIsNoProcessorIsRefusedSayingWhereItCameFrom() {
        Plugins loaded = Plugins.load(plugins);

        Plugins.PluginException e = assertThrows(
                Plugins.PluginException.class, () -> loaded.processorFactory(STEP, "com.example.Helper", Map.of()));

        assertEquals(
                STEP + ": class com.example.Helper (from fraud-flag.jar) does not implement io.weir.api.Processor,"
                        + " which a process step needs",
                e.getMessage());
    }

    /** A processor on the test class path, for the fallback when there is no plugins directory. */
    public static final class Echo implements Processor {
        @Override
        public void process(Record record, Output out) {
            out.emit(record.value());
        }
    }

    /** Needs an argument, so the runtime cannot make it. */
    public static final class NeedsArgument implements Processor {
        public NeedsArgument(String ignored) {}

        @Override
        public void process(Record record, Output out) {}
    }

    /** Fails in its constructor. */
    public static final class Explodes implements Processor {
        public Explodes() {
            throw new IllegalStateException("no licence key");
        }

        @Override
        public void process(Record record, Output out) {}
    }

    @Test
    void withoutAPluginsDirectoryClassesComeFromTheRuntimesClassPath() throws Exception {
        Plugins loaded = Plugins.load(temp.resolve("no-such-dir"));

        OperatorHarness harness = new OperatorHarness(
                loaded.processorFactory(STEP, Echo.class.getName(), null).get());

        assertEquals(Map.of("a", 1L), harness.json("k", "{\"a\":1}").value());
        assertEquals(List.of(), loaded.jars());
        Plugins.PluginException e = assertThrows(
                Plugins.PluginException.class, () -> loaded.processorFactory(STEP, "com.example.FraudFlag", null));
        assertTrue(
                e.getMessage()
                        .endsWith("not found on the runtime's class path (there is no plugins directory "
                                + temp.resolve("no-such-dir") + ")"),
                e.getMessage());
    }

    @Test
    void aClassWithoutANoArgumentConstructorOrWhoseConstructorThrowsFailsTheStart() {
        Plugins loaded = Plugins.load(temp.resolve("no-such-dir"));

        Plugins.PluginException noConstructor = assertThrows(
                Plugins.PluginException.class,
                () -> loaded.processorFactory(STEP, NeedsArgument.class.getName(), null));
        Plugins.PluginException throwing = assertThrows(
                Plugins.PluginException.class, () -> loaded.processorFactory(STEP, Explodes.class.getName(), null));

        assertTrue(
                noConstructor
                        .getMessage()
                        .contains(NeedsArgument.class.getName() + " has no public no-argument constructor"),
                noConstructor.getMessage());
        assertEquals(
                STEP + ": the constructor of " + Explodes.class.getName()
                        + " threw java.lang.IllegalStateException: no licence key",
                throwing.getMessage());
    }
}
