package io.weir.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.weir.expr.ExpressionTypes;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** The steps written with CEL expressions, routes and custom operators: good forms and mistakes. */
class PipelineLanguageTest {

    private static List<String> errors(String pipeline) {
        return Configs.errors("application: app\n" + pipeline).stream()
                .map(ConfigError::toString)
                .toList();
    }

    private static Pipeline load(String pipeline) {
        return Configs.load("application: app\n" + pipeline).pipeline();
    }

    @Test
    void aFullPipelineBinds() {
        Pipeline pipeline = load(
                """
        pipeline:
          - source: { topic: orders, key-format: json }
          - filter: "value.amount > 10"
          - map: { set: { total: "value.amount * value.qty" }, drop: [note] }
          - key-by: { by: "value.user", partitions: 6 }
          - dedupe: { by: "value.id", within: 10m }
          - aggregate: { count: n, sum: { total: total }, first: { id: firstId }, last: { id: lastId } }
          - process:
              class: com.example.Enrich$Step
              with: { url: "http://x", retries: 3, tags: [a, b], nested: { on: true } }
          - sink: { topic: totals, key: "value.key", key-format: bytes }
        """);

        assertEquals(new SourceStep("orders", Format.JSON, Format.JSON), pipeline.source());
        List<OperatorStep> ops = pipeline.operators();
        assertEquals("value.amount > 10", ((FilterStep) ops.get(0)).condition().text());
        MapStep map = (MapStep) ops.get(1);
        assertEquals(List.of("total"), List.copyOf(map.set().keySet()));
        assertEquals(List.of("note"), map.drop());
        assertEquals(Optional.empty(), map.value());
        KeyByStep keyBy = (KeyByStep) ops.get(2);
        assertEquals(OptionalInt.of(6), keyBy.partitions());
        assertEquals(
                new ExpressionTypes(ExpressionTypes.Kind.DYN, ExpressionTypes.Kind.DYN),
                keyBy.by().types());
        DedupeStep dedupe = (DedupeStep) ops.get(3);
        assertEquals(Duration.ofMinutes(10), dedupe.within());
        AggregateStep aggregate = (AggregateStep) ops.get(4);
        assertEquals(List.of("key", "n", "total", "firstId", "lastId"), aggregate.outputFields());
        ProcessStep process = (ProcessStep) ops.get(5);
        assertEquals("com.example.Enrich$Step", process.className());
        assertEquals(
                Map.of("url", "http://x", "retries", "3", "tags", List.of("a", "b"), "nested", Map.of("on", "true")),
                process.with());
        SinkStep sink = (SinkStep) pipeline.terminal();
        assertEquals(Format.BYTES, sink.keyFormat());
        assertEquals("value.key", sink.key().orElseThrow().text());
        assertEquals(List.of("orders", "totals"), pipeline.topics());
    }

    @Test
    void theShortKeyByAndAValueMapBind() {
        Pipeline pipeline = load(
                """
        pipeline:
          - source: { topic: in, format: string }
          - map: { value: "{'text': value}" }
          - key-by: value.text
          - aggregate: { count: n, last: { text: text } }
          - sink: { topic: out }
        """);
        MapStep map = (MapStep) pipeline.operators().get(0);
        assertEquals(
                ExpressionTypes.Kind.STRING, map.value().orElseThrow().types().value());
        assertEquals(OptionalInt.empty(), ((KeyByStep) pipeline.operators().get(1)).partitions());
        assertEquals(
                ExpressionTypes.Kind.DYN,
                ((KeyByStep) pipeline.operators().get(1)).by().types().value());
    }

    @Test
    void aRouteBinds() {
        Pipeline pipeline = load(
                """
        pipeline:
          - source: { topic: orders }
          - route:
              - when: "value.amount > 100"
                sink: { topic: big-orders, format: json }
              - when: "value.country == 'DE'"
                sink: { topic: de-orders }
              - default: { topic: other-orders }
        """);
        RouteStep route = assertInstanceOf(RouteStep.class, pipeline.terminal());
        assertEquals(2, route.cases().size());
        assertEquals("value.amount > 100", route.cases().get(0).when().text());
        assertEquals(
                new SinkStep("other-orders", Format.JSON), route.otherwise().orElseThrow());
        assertEquals(List.of("orders", "big-orders", "de-orders", "other-orders"), pipeline.topics());
        assertEquals(3, pipeline.sinks().size());
        assertThrows(IllegalStateException.class, pipeline::sink);
    }

    @Test
    void aCelSyntaxErrorIsReportedAtItsPositionInTheFile() {
        assertEquals(
                List.of("config/job.yaml:4:27: pipeline.1.filter: syntax error in CEL expression: mismatched input "
                        + "'<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, "
                        + "NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}"),
                errors(
                        """
        pipeline:
          - source: { topic: in }
          - filter: value.amount >
          - sink: { topic: out }
        """));
        assertEquals(
                List.of("config/job.yaml:4:28: pipeline.1.filter: syntax error in CEL expression: mismatched input "
                        + "'<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, "
                        + "NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}"),
                errors(
                        """
        pipeline:
          - source: { topic: in }
          - filter: "value.amount >"
          - sink: { topic: out }
        """));
    }

    @Test
    void aCelErrorInQuotedTextWithEscapesNamesItsPlaceInTheExpression() {
        // The text is shorter than what it is written as, so its columns are not the file's.
        for (String filter : List.of("\"value.name == \\\"x\\\" && nosuch\"", "'value.name == ''x'' && nosuch'")) {
            assertEquals(
                    List.of("config/job.yaml:4:13: pipeline.1.filter: type error in CEL expression: undeclared "
                            + "reference to 'nosuch' (at line 1, column 22 of the expression)"),
                    errors(
                            """
            pipeline:
              - source: { topic: in }
              - filter: %s
              - sink: { topic: out }
            """
                                    .formatted(filter)),
                    filter);
        }
    }

    @Test
    void aCelErrorInABlockScalarNamesItsPlaceInTheExpression() {
        assertEquals(
                List.of("config/job.yaml:4:13: pipeline.1.filter: type error in CEL expression: undeclared "
                        + "reference to 'amount' (at line 2, column 3 of the expression)"),
                errors(
                        """
        pipeline:
          - source: { topic: in }
          - filter: |
              value.x > 1 &&
                amount > 2
          - sink: { topic: out }
        """));
    }

    @Test
    void typeErrorsAndUndeclaredNamesAreReported() {
        assertEquals(
                List.of(
                        "config/job.yaml:4:19: pipeline.1.filter: type error in CEL expression: found no matching "
                                + "overload for '_==_' applied to '(string, int)'",
                        "config/job.yaml:5:26: pipeline.2.map.set.total: type error in CEL expression: undeclared "
                                + "reference to 'amount'"),
                errors(
                        """
        pipeline:
          - source: { topic: in }
          - filter: topic == 5
          - map: { set: { total: amount * 2 } }
          - sink: { topic: out }
        """));
    }

    @Test
    void aFilterMustGiveABool() {
        assertEquals(
                List.of("config/job.yaml:4:13: pipeline.1.filter: a filter must give a bool, this gives int"),
                errors(
                        """
        pipeline:
          - source: { topic: in }
          - filter: "1 + 2"
          - sink: { topic: out }
        """));
        assertEquals(
                List.of(
                        "config/job.yaml:4:13: pipeline.1.filter must be a CEL expression giving a bool, was a mapping"),
                errors(
                        """
        pipeline:
          - source: { topic: in }
          - filter: { when: "true" }
          - sink: { topic: out }
        """));
    }

    @Test
    void aStringSourceValueIsTypedUntilAMapReplacesIt() {
        assertEquals(
                List.of("config/job.yaml:4:18: pipeline.1.filter: type error in CEL expression: type 'string' does "
                        + "not support field selection"),
                errors(
                        """
        pipeline:
          - source: { topic: in, format: string }
          - filter: value.amount > 1
          - sink: { topic: out }
        """));
        load(
                """
        pipeline:
          - source: { topic: in, format: string }
          - filter: value.startsWith('{')
          - map: { value: "{'line': value}" }
          - filter: value.line != ''
          - sink: { topic: out }
        """);
    }

    @Test
    void mapMistakesAreReported() {
        assertEquals(
                List.of(
                        "config/job.yaml:4:10: pipeline.1.map needs set, drop or value, was none",
                        "config/job.yaml:5:36: pipeline.2.map.value replaces the whole value, so set and drop "
                                + "cannot be given with it; use value alone, or set and drop",
                        "config/job.yaml:6:36: pipeline.3.map.drop.0 drops field a, which pipeline.3.map.set sets; "
                                + "a field is either set or dropped",
                        "config/job.yaml:7:18: pipeline.4.map.drop must be a list of field names such as [a, b], "
                                + "was a"),
                errors(
                        """
        pipeline:
          - source: { topic: in }
          - map: {}
          - map: { set: { a: "1" }, value: "value" }
          - map: { set: { a: "1" }, drop: [a] }
          - map: { drop: a }
          - sink: { topic: out }
        """));
        assertEquals(
                List.of("config/job.yaml:4:10: pipeline.1.map sets or drops fields of the records, which needs "
                        + "format json at the source, but pipeline.0.source.format is bytes; use json, or replace "
                        + "the value with map.value"),
                errors(
                        """
        pipeline:
          - source: { topic: in, format: bytes }
          - map: { drop: [a] }
          - sink: { topic: out }
        """));
    }

    @Test
    void keyByAndDedupeMistakesAreReported() {
        assertEquals(
                List.of(
                        "config/job.yaml:4:40: pipeline.1.key-by.partitions must be at least 1, was 0",
                        "config/job.yaml:5:13: pipeline.2.key-by.by is required: the CEL expression giving the new key",
                        "config/job.yaml:6:13: pipeline.3.dedupe.within is required: how long a seen record is "
                                + "remembered, such as 10m",
                        "config/job.yaml:7:37: pipeline.4.dedupe.within must be positive, was 0s",
                        "config/job.yaml:8:5: pipeline.5: a sink may only be the last step"),
                errors(
                        """
        pipeline:
          - source: { topic: in }
          - key-by: { by: value.u, partitions: 0 }
          - key-by: { partitions: 2 }
          - dedupe: { by: value.id }
          - dedupe: { by: value.id, within: 0s }
          - sink: { topic: mid }
          - sink: { topic: out }
        """));
    }

    @Test
    void routeMistakesAreReported() {
        assertEquals(
                List.of(
                        "config/job.yaml:5:9: pipeline.1.route.0.sink is required: where the records for which when "
                                + "is true are written",
                        "config/job.yaml:6:9: pipeline.1.route.1.when is required: the condition (a CEL bool) for "
                                + "records to go to this case's sink",
                        "config/job.yaml:7:35: pipeline.1.route.2.default cannot be given with when or sink: a "
                                + "default case has only default, the sink for records no case matched",
                        "config/job.yaml:8:9: pipeline.1.route.3 comes after the default case "
                                + "pipeline.1.route.2.default, so no record would reach it; the default must be the "
                                + "last case",
                        "config/job.yaml:8:17: pipeline.1.route.3.when: a route's when must give a bool, this gives "
                                + "string",
                        "config/job.yaml:8:39: pipeline.1.route.3.sink.topic must differ from the source topic in, "
                                + "or the job would read its own results, was in",
                        "config/job.yaml:9:9: pipeline.1.route.4 comes after the default case "
                                + "pipeline.1.route.2.default, so no record would reach it; the default must be the "
                                + "last case",
                        "config/job.yaml:9:27: pipeline.1.route.4.default.topic must differ from the dead-letter "
                                + "topic app-dlq (the default dead-letter.topic), or dead letters would mix with "
                                + "results, was app-dlq"),
                errors(
                        """
        pipeline:
          - source: { topic: in }
          - route:
              - when: "true"
              - sink: { topic: a }
              - { when: "false", default: { topic: b } }
              - { when: "'x'", sink: { topic: in } }
              - default: { topic: app-dlq }
        """));
    }

    @Test
    void aRouteOrSinkOnlyLast() {
        assertEquals(
                List.of("config/job.yaml:4:5: pipeline.1: a route may only be the last step"),
                errors(
                        """
        pipeline:
          - source: { topic: in }
          - route: [{ when: "true", sink: { topic: a } }]
          - sink: { topic: out }
        """));
        assertEquals(
                List.of("config/job.yaml:4:12: pipeline.1.route must be a list of cases (- when: <CEL bool>, sink: "
                        + "{...}) with an optional last - default: {...}, was a mapping"),
                errors(
                        """
        pipeline:
          - source: { topic: in }
          - route: { when: "true" }
        """));
    }

    @Test
    void theDeadLetterTopicCannotBeARouteTopic() {
        assertEquals(
                List.of("config/job.yaml:2:23: dead-letter.topic must differ from the pipeline's topics, was de"),
                errors(
                        """
        dead-letter: { topic: de }
        pipeline:
          - source: { topic: in }
          - route: [{ when: "true", sink: { topic: de } }]
        """));
    }

    @Test
    void processMistakesAreReported() {
        assertEquals(
                List.of(
                        "config/job.yaml:4:14: pipeline.1.process.class is required: the Java class of the operator, "
                                + "such as com.example.MyOperator",
                        "config/job.yaml:5:23: pipeline.2.process.class must be a Java class name such as "
                                + "com.example.MyOperator, was com..Bad",
                        "config/job.yaml:6:39: pipeline.3.process.with.x must have a value, was null; leave the key "
                                + "out instead",
                        "config/job.yaml:7:34: pipeline.4.process.with must be a mapping of the operator's settings, "
                                + "was a list"),
                errors(
                        """
        pipeline:
          - source: { topic: in }
          - process: { with: {} }
          - process: { class: com..Bad }
          - process: { class: a.B, with: { x: ~ } }
          - process: { class: a.B, with: [1] }
          - sink: { topic: out }
        """));
    }

    @Test
    void aSinkKeyIsCompiledAndAnAggregateOfFirstNeedsJson() {
        assertEquals(
                List.of(
                        "config/job.yaml:4:5: pipeline.1.aggregate reads fields of the records, which needs format "
                                + "json at the source, but pipeline.0.source.format is string; use json or only count",
                        "config/job.yaml:5:31: pipeline.2.sink.key: syntax error in CEL expression: token "
                                + "recognition error at: '#'",
                        "config/job.yaml:5:32: pipeline.2.sink.key: syntax error in CEL expression: mismatched "
                                + "input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', "
                                + "NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}"),
                errors(
                        """
        pipeline:
          - source: { topic: in, format: string }
          - aggregate: { first: { a: b } }
          - sink: { topic: out, key: "#" }
        """));
    }

    @Test
    void theRecordsRefuseWhatTheLoaderRefuses() throws Exception {
        var expression = io.weir.expr.Expression.compile("1", ExpressionTypes.DYN);
        assertThrows(IllegalArgumentException.class, () -> new FilterStep(expression));
        assertThrows(
                IllegalArgumentException.class,
                () -> new MapStep(Map.of("a", expression), List.of(), Optional.of(expression)));
        assertThrows(IllegalArgumentException.class, () -> new MapStep(Map.of(), List.of(), Optional.empty()));
        assertThrows(IllegalArgumentException.class, () -> new KeyByStep(expression, OptionalInt.of(0)));
        assertThrows(IllegalArgumentException.class, () -> new DedupeStep(expression, Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> new ProcessStep("1a", Map.of(), "job.yaml:1:1"));
        assertThrows(IllegalArgumentException.class, () -> new RouteStep(List.of(), Optional.empty()));
    }
}
