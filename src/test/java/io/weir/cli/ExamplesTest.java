package io.weir.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/** Every example job ships cases for {@code weir test}, and they pass; a wrong expectation fails. */
class ExamplesTest {

    record Run(int exit, String out, String err) {}

    static Run weir(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = WeirCommand.commandLine(args);
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    static Stream<Path> examples() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("config/examples"))) {
            return files.filter(f -> f.toString().endsWith(".cases.yaml")).sorted().toList().stream();
        }
    }

    @ParameterizedTest
    @MethodSource("examples")
    void theExamplesCasesPass(Path cases) {
        Path job = Path.of(cases.toString().replace(".cases.yaml", ".yaml"));
        Run run = weir("test", "--config", job.toString(), "--cases", cases.toString());
        assertEquals(0, run.exit(), run.out() + run.err());
        assertTrue(run.out().contains(" passed, 0 failed"), run.out());
    }

    @Test
    void everyExampleJobHasCases() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("config/examples"))) {
            List<Path> jobs = files.filter(
                            f -> f.toString().endsWith(".yaml") && !f.toString().endsWith(".cases.yaml"))
                    .toList();
            for (Path job : jobs) {
                assertTrue(
                        Files.exists(Path.of(job.toString().replace(".yaml", ".cases.yaml"))), job + " has no cases");
            }
        }
    }

    @Test
    void aWrongExpectationFailsWithADiffAndExitCodeOne(@TempDir Path dir) throws IOException {
        Path cases = dir.resolve("wrong.cases.yaml");
        Files.writeString(
                cases,
                """
                cases:
                  - name: wrong sum
                    input:
                      - { key: u1, value: { user: u1, amount: 37, seq: 1 } }
                    expect:
                      totals:
                        - { key: u1, value: { user: u1, count: 1, sum: 38, lastSeq: 1 } }
                  - name: a record without a key expected where nothing is written
                    input:
                      - { key: u2, value: { user: u2, amount: 5, seq: 1 } }
                    expect:
                      totals:
                        - { key: u2, value: { user: u2, count: 1, sum: 5, lastSeq: 1 } }
                      dead-letter:
                        - { key: null, error: "nothing" }
                  - name: right sum
                    input:
                      - { key: u3, value: { user: u3, amount: 2, seq: 1 } }
                    expect:
                      totals:
                        - { key: u3, value: { user: u3, count: 1, sum: 2, lastSeq: 1 } }
                """);
        Run run = weir("test", "--config", "config/examples/running-totals.yaml", "--cases", cases.toString());
        assertEquals(1, run.exit(), run.out());
        assertTrue(run.out().contains("1 passed, 2 failed"), run.out());
        assertTrue(run.out().contains("key null #1: missing"), run.out());
        assertTrue(run.out().contains("FAIL wrong sum"), run.out());
        assertTrue(run.out().contains("totals, key u1 #1: value differs"), run.out());
        assertTrue(run.out().contains("\"sum\":37"), run.out());
    }

    @Test
    void expressionsReadAnAggregatesOutputLikeAnyObject(@TempDir Path dir) throws IOException {
        // The aggregate's output is its own read-only map (Fields); filter, has(), map set/drop
        // and nesting it whole must see it as the object it writes.
        passes(
                dir,
                Files.readString(Path.of("config/examples/running-totals.yaml"))
                        .replace(
                                "  - sink: { topic: totals, format: json }",
                                "  - filter: \"value.count > 1 && has(value.lastSeq) && value.user == key\"\n"
                                        + "  - map: { set: { double: \"value.sum * 2\", all: \"value\" }, drop: [count] }\n"
                                        + "  - sink: { topic: totals, format: json }"),
                """
                cases:
                  - name: expressions over an aggregate's output
                    input:
                      - { key: u1, value: { user: u1, amount: 37, seq: 1 } }
                      - { key: u1, value: { user: u1, amount: 3, seq: 2 } }
                    expect:
                      totals:
                        - { key: u1, value: { user: u1, sum: 40, lastSeq: 2, double: 80, all: { user: u1, count: 2, sum: 40, lastSeq: 2 } } }
                """);
    }

    @Test
    void aStageReadsItsInputInTheSourcesFormatWhenAStepReplacesTheValue(@TempDir Path dir) throws IOException {
        // The value a map replaces is written on as JSON (to a repartition topic), but the stage
        // itself still reads its input as the source says: here strings, which are not JSON.
        Path job = passes(
                dir,
                """
                application: lines
                kafka: { bootstrap: localhost:9092 }
                pipeline:
                  - source: { topic: lines, format: string }
                  - map: { value: "{'text': value, 'at': topic + ':' + string(offset)}" }
                  - key-by: value.text
                  - map: { value: "value.text + '@' + value.at" }
                  - sink: { topic: out, format: string }
                """,
                """
                cases:
                  - name: plain text lines, re-keyed by their text
                    input:
                      - { key: a, value: "hello" }
                      - { key: b, value: "not {json" }
                    expect:
                      out:
                        - { key: hello, value: "hello@lines:0" }
                        - { key: "not {json", value: "not {json@lines:1" }
                """);
        Run explain = weir("explain", "--config", job.toString());
        assertTrue(explain.out().contains("reads   lines — key string, value string"), explain.out());
        assertTrue(
                explain.out().contains("reads   lines-repartition-1 (internal, read_committed) — key json, value json"),
                explain.out());
    }

    @Test
    void anAggregateOfTextRecordsIsWrittenOnAsJsonToTheNextStage(@TempDir Path dir) throws IOException {
        // A count needs no fields, so it may follow a string source; its output is an object, which
        // the repartition topic must carry as JSON, not as the source's text.
        Path job = passes(
                dir,
                """
                application: counted
                kafka: { bootstrap: localhost:9092 }
                pipeline:
                  - source: { topic: lines, format: string }
                  - aggregate: { by: key, key-as: user, count: n }
                  - key-by: "value.n"
                  - filter: "value.n >= 2"
                  - sink: { topic: out, format: json, key-format: json }
                """,
                """
                cases:
                  - name: counts of text lines, re-keyed by the count
                    input:
                      - { key: a, value: "x" }
                      - { key: a, value: "y" }
                      - { key: b, value: "z" }
                    expect:
                      out:
                        - { key: 2, value: { user: a, n: 2 } }
                """);
        Run explain = weir("explain", "--config", job.toString());
        assertTrue(
                explain.out()
                        .contains("reads   counted-repartition-1 (internal, read_committed) — key json, value json"),
                explain.out());
    }

    @Test
    void theCasesExampleOfThePipelineLanguageDocsPasses(@TempDir Path dir) throws IOException {
        // Its dead letter names the step the record could not reach, as the docs show.
        String docs = Files.readString(Path.of("docs", "pipeline-language.md"));
        int start = docs.indexOf("```yaml\ncases:");
        String cases = docs.substring(start + "```yaml\n".length(), docs.indexOf("```", start + 8));
        passes(
                dir,
                """
                application: documented
                kafka: { bootstrap: localhost:9092 }
                pipeline:
                  - source: { topic: orders, format: json }
                  - aggregate: { by: key, key-as: user, count: count, sum: { amount: sum } }
                  - sink: { topic: totals, format: json }
                """,
                cases);
    }

    @Test
    void aRecordReKeyedToNullHasNoKeyForTheAggregateAfterIt(@TempDir Path dir) throws IOException {
        // The null key crosses the repartition topic as JSON null; the aggregate must refuse it as
        // it refuses a record read without a key, not count every such record under one null key.
        passes(
                dir,
                """
                application: rekeyed
                kafka: { bootstrap: localhost:9092 }
                pipeline:
                  - source: { topic: orders, format: json }
                  - key-by: "value.user"
                  - aggregate: { by: key, key-as: user, count: n }
                  - sink: { topic: counts, format: json }
                """,
                """
                cases:
                  - name: a user of null is no key
                    input:
                      - { key: o1, value: { user: null } }
                      - { key: o2, value: { user: u1 } }
                      - { key: o3, value: { user: null } }
                    expect:
                      counts:
                        - { key: u1, value: { user: u1, n: 1 } }
                      dead-letter:
                        - { key: "null", error: "aggregate by key needs a record key", step: pipeline.2.aggregate }
                        - { key: "null", error: "aggregate by key needs a record key", step: pipeline.2.aggregate }
                """);
    }

    @Test
    void aBytesSinkWritesTextAsUtf8AndOtherValuesAsJsonText(@TempDir Path dir) throws IOException {
        passes(
                dir,
                """
                application: raw
                kafka: { bootstrap: localhost:9092 }
                pipeline:
                  - source: { topic: orders, format: json }
                  - route:
                      - when: "key == 'n'"
                        sink: { topic: notes, format: bytes }
                      - default: { topic: raw, format: bytes }
                """,
                """
                cases:
                  - name: JSON read, bytes written
                    input:
                      - { key: a, value: { x: 1, y: [true, null] } }
                      - { key: b, value: 7 }
                      - { key: n, value: '"a {note"' }
                    expect:
                      raw:
                        - { key: a, value: '{"x":1,"y":[true,null]}' }
                        - { key: b, value: '7' }
                      notes:
                        - { key: n, value: "a {note" }
                """);
    }

    @Test
    void explainShowsStagesTasksTopicsAndState() {
        Run run = weir("explain", "--config", "config/examples/bucket-totals.yaml");
        assertEquals(0, run.exit(), run.err());
        assertTrue(run.out().contains("2 stages"), run.out());
        assertTrue(run.out().contains("reads   bucket-totals-repartition-1 (internal, read_committed)"), run.out());
        assertTrue(run.out().contains("writes  bucket-totals-repartition-1 (internal)"), run.out());
        assertTrue(run.out().contains("tasks   bucket-totals-stage1-<p>"), run.out());
        assertTrue(run.out().contains("state: per key"), run.out());
    }

    @Test
    void validateExplainAndTestRefuseTheSameBadJobAlike(@TempDir Path dir) throws IOException {
        Path job = dir.resolve("bad.yaml");
        Files.writeString(
                job,
                """
                application: bad
                pipeline:
                  - source: { topic: orders }
                  - filter: "value.amount >"
                  - sink: { topic: out }
                """);
        for (String command : List.of("validate", "explain", "test")) {
            Run run = command.equals("test")
                    ? weir(command, "--config", job.toString(), "--cases", job.toString())
                    : weir(command, "--config", job.toString());
            assertEquals(2, run.exit(), command);
        }
        // A custom operator's class is looked for in the plugins by all three, as by a run.
        // At the file, line and column of the class name, like every other configuration error.
        Path missing = refusedAlike(dir, "com.acme.Nope", ":5:23: pipeline.1.process: class com.acme.Nope not found");
        Run overridden = weir("validate", "--config", missing.toString(), "--set", "pipeline.1.process.class=a.B");
        assertEquals(2, overridden.exit(), overridden.err());
        assertTrue(
                overridden.err().contains("--set pipeline.1.process.class: pipeline.1.process: class a.B not found"),
                overridden.err());
    }

    /**
     * Writes a job whose process step is {@code process} (the class and what follows it), and
     * expects validate, explain and test to refuse it with {@code error} after the job file's name.
     */
    private static Path refusedAlike(Path dir, String process, String error) throws IOException {
        Path job = Files.writeString(
                dir.resolve("refused-" + Integer.toHexString(process.hashCode()) + ".yaml"),
                """
                application: refused
                processing: { plugins: %s }
                pipeline:
                  - source: { topic: orders }
                  - process: { class: %s }
                  - sink: { topic: out }
                """
                        .formatted(dir.resolve("plugins"), process));
        Path cases = Files.writeString(
                dir.resolve("refused.cases.yaml"),
                "cases: [ { name: one, input: [ { key: a, value: {} } ], expect: {} } ]\n");
        for (String command : List.of("validate", "explain", "test")) {
            Run run = command.equals("test")
                    ? weir(command, "--config", job.toString(), "--cases", cases.toString())
                    : weir(command, "--config", job.toString());
            assertEquals(2, run.exit(), command + ": " + run.out() + run.err());
            assertTrue(run.err().contains(job + error), command + ": " + run.err());
        }
        return job;
    }

    /** Refuses a {@code limit} that is no whole number when it opens, as a processor is told to. */
    public static final class RefusesItsLimit implements io.weir.api.Processor {
        @Override
        public void open(io.weir.api.ProcessorContext context) {
            context.settings().getLong("limit", 0);
        }

        @Override
        public void process(io.weir.api.Record record, io.weir.api.Output out) {
            out.emit(record.value());
        }
    }

    @Test
    void validateExplainAndTestRefuseACustomOperatorsWrongSettingWhereTheStepIs(@TempDir Path dir) throws IOException {
        Path job = refusedAlike(
                dir,
                RefusesItsLimit.class.getName() + ", with: { limit: lots }",
                ":5:23: pipeline.1.process: custom operator " + RefusesItsLimit.class.getName() + " failed to open: "
                        + "java.lang.IllegalArgumentException: setting 'limit' is 'lots', expected a whole number");
        Run fixed = weir("validate", "--config", job.toString(), "--set", "pipeline.1.process.with.limit=5");
        assertEquals(0, fixed.exit(), fixed.err());
    }

    /** Collects each key's records and emits them 300 ms of processing time after the first. */
    public static final class Batcher implements io.weir.api.Processor {
        private io.weir.api.ProcessorContext context;
        private io.weir.api.ListState<Long> seqs;

        @Override
        public void open(io.weir.api.ProcessorContext context) {
            this.context = context;
            seqs = context.listState("seqs", Long.class);
        }

        @Override
        public void process(io.weir.api.Record record, io.weir.api.Output out) {
            if (seqs.get().isEmpty()) {
                context.timers().registerProcessingTime(context.currentProcessingTime() + 300);
            }
            seqs.add(((Number) record.valueAsMap().get("seq")).longValue());
        }

        @Override
        public void onTimer(io.weir.api.TimerEvent timer, io.weir.api.Output out) {
            out.emit(java.util.Map.of("at", timer.timestamp(), "seqs", seqs.get()));
            seqs.clear();
        }
    }

    @Test
    void weirTestFiresAProcessingTimeTimerBeforeTheRecordThatMovesTheClockPastIt(@TempDir Path dir) throws IOException {
        // Processing time is the latest input's timestamp: at 1400 the timer due at 1300 had fired
        // in a real run before the record arrived, so the record opens the next batch.
        passes(
                dir,
                """
                application: batches
                pipeline:
                  - source: { topic: in }
                  - process: { class: %s }
                  - sink: { topic: out }
                """
                        .formatted(Batcher.class.getName()),
                """
                cases:
                  - name: batches by processing time
                    input:
                      - { key: a, value: { seq: 1 }, timestamp: 1000 }
                      - { key: a, value: { seq: 2 }, timestamp: 1100 }
                      - { key: a, value: { seq: 3 }, timestamp: 1400 }
                      - { key: a, value: { seq: 4 }, timestamp: 1500 }
                      - { key: b, value: { seq: 5 }, timestamp: 1800 }
                    expect:
                      out:
                        - { key: a, value: { at: 1300, seqs: [1, 2] } }
                        - { key: a, value: { at: 1700, seqs: [3, 4] } }
                """);
    }

    /** Writes a job and its cases into {@code dir}, runs {@code weir test} and expects one case to pass. */
    @Test
    void aRecordEmittedOnATimerThatALaterStepRefusesIsADeadLetterAsEmitted(@TempDir Path dir) throws IOException {
        // A left join's unmatched order (emitted when the watermark passes its bound) and a closed
        // window's result reach the map on a timer, with no input record behind them: refused
        // there, each is a dead letter of the record as emitted, not dropped with a log line.
        passes(
                dir.resolve("join"),
                """
                application: timer-dead-letters
                kafka: { bootstrap: "localhost:9092" }
                pipeline:
                  - source: { topic: orders, format: json, timestamp: "value.ts" }
                  - join: { with: { topic: payments, format: json }, within: 1m, type: left, as: payment }
                  - map: { set: { c: "value.customer" } }
                  - sink: { topic: out, format: json }
                """,
                """
                cases:
                  - name: an unmatched order without a customer
                    input:
                      - { key: o1, value: { oid: o1, ts: 1000 } }
                      - { key: o2, value: { oid: o2, customer: k2, ts: 1000 } }
                      - { key: o3, value: { oid: o3, customer: k3, ts: 200000 } }
                      - { topic: payments, key: o3, value: { oid: o3, ts: 200000 } }
                    expect:
                      out:
                        - { key: o2, value: { oid: o2, customer: k2, ts: 1000, payment: null, c: k2 } }
                        - { key: o3, value: { oid: o3, customer: k3, ts: 200000, payment: { oid: o3, ts: 200000 }, c: k3 } }
                      dead-letter:
                        - { key: o1, value: { oid: o1, ts: 1000, payment: null }, step: pipeline.2.map.set.c }
                """);
        passes(
                dir.resolve("window"),
                """
                application: timer-dead-letters
                kafka: { bootstrap: "localhost:9092" }
                pipeline:
                  - source: { topic: events, format: json, timestamp: "value.ts" }
                  - aggregate: { by: key, window: { tumbling: 10s }, count: n }
                  - map: { set: { per: "100 / (value.n - 1)" } }
                  - sink: { topic: out, format: json }
                """,
                """
                cases:
                  - name: a window of one record divides by zero after it closed
                    input:
                      - { key: a, value: { ts: 1000 } }
                      - { key: b, value: { ts: 2000 } }
                      - { key: b, value: { ts: 3000 } }
                      - { key: c, value: { ts: 25000 } }
                    expect:
                      out:
                        - { key: b, value: { key: b, windowStart: 0, windowEnd: 10000, n: 2, per: 100 } }
                      dead-letter:
                        - { key: a, error: "by zero", step: pipeline.2.map.set.per }
                """);
    }

    @Test
    void anEventTimeBefore1970IsADeadLetterAsNoKafkaRecordCanCarryIt(@TempDir Path dir) throws IOException {
        passes(
                dir,
                """
                application: negative-time
                kafka: { bootstrap: "localhost:9092" }
                pipeline:
                  - source: { topic: events, format: json, timestamp: "value.ts" }
                  - sink: { topic: out, format: json }
                """,
                """
                cases:
                  - name: a negative timestamp
                    input:
                      - { key: a, value: { n: 1, ts: 1000 } }
                      - { key: a, value: { n: 2, ts: -5000 } }
                    expect:
                      out:
                        - { key: a, value: { n: 1, ts: 1000 } }
                      dead-letter:
                        - { key: a, error: "before 1970", step: pipeline.0.source.timestamp }
                """);
    }

    @Test
    void aJoinsOutputKeepsTheStreamRecordsHeadersHoweverItWasMade(@TempDir Path dir) throws IOException {
        // Made when the order arrives (its partner waited), when the payment arrives (the order
        // waited in state) and on the timer of a left join (no partner): each keeps the order's headers.
        passes(
                dir,
                """
                application: join-headers
                kafka: { bootstrap: "localhost:9092" }
                pipeline:
                  - source: { topic: orders, format: json, timestamp: "value.ts" }
                  - join: { with: { topic: payments, format: json }, within: 1m, type: left, as: payment }
                  - map: { set: { hs: "headers" }, drop: [payment] }
                  - sink: { topic: out, format: json }
                """,
                """
                cases:
                  - name: headers through the join
                    input:
                      - { topic: payments, key: o1, value: { ts: 1000 } }
                      - { key: o1, value: { ts: 1000 }, headers: { trace: t1 } }
                      - { key: o2, value: { ts: 2000 }, headers: { trace: t2 } }
                      - { topic: payments, key: o2, value: { ts: 2000 } }
                      - { key: o3, value: { ts: 3000 }, headers: { trace: t3 } }
                      - { key: o4, value: { ts: 300000 } }
                      - { topic: payments, key: o4, value: { ts: 300000 } }
                    expect:
                      out:
                        - { key: o1, value: { ts: 1000, hs: { trace: t1 } } }
                        - { key: o2, value: { ts: 2000, hs: { trace: t2 } } }
                        - { key: o3, value: { ts: 3000, hs: { trace: t3 } } }
                        - { key: o4, value: { ts: 300000, hs: {} } }
                """);
    }

    private static Path passes(Path dir, String jobYaml, String casesYaml) throws IOException {
        Files.createDirectories(dir);
        Path job = Files.writeString(dir.resolve("job.yaml"), jobYaml);
        Path cases = Files.writeString(dir.resolve("job.cases.yaml"), casesYaml);
        Run run = weir("test", "--config", job.toString(), "--cases", cases.toString());
        assertEquals(0, run.exit(), run.out() + run.err());
        assertTrue(run.out().contains("1 passed, 0 failed"), run.out());
        return job;
    }
}
