package io.weir.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PipelineValidationTest {

    private static List<String> errors(String pipeline) {
        return Configs.errors("application: app\n" + pipeline).stream()
                .map(ConfigError::toString)
                .toList();
    }

    @Test
    void aMissingPipelineIsReported() {
        assertEquals(
                "config/job.yaml:1:1: pipeline is required: a list of steps that starts with a "
                        + "source and ends with a sink",
                Configs.error("application: app\n"));
    }

    @Test
    void anEmptyPipelineIsReported() {
        assertEquals(
                List.of("config/job.yaml:2:11: pipeline must have at least a source and a sink, " + "was empty"),
                errors("pipeline: []\n"));
    }

    @Test
    void aPipelineThatIsNotAListIsReported() {
        assertEquals(
                List.of("config/job.yaml:3:3: pipeline must be a list of steps (- source: ..., "
                        + "- sink: ...), was a mapping"),
                errors("pipeline:\n  source: { topic: in }\n"));
    }

    @Test
    void aSourceNeedsNoOperatorsBeforeTheSink() {
        Pipeline pipeline = Configs.load(
                        """
        application: app
        pipeline:
          - source: { topic: in }
          - sink: { topic: out }
        """)
                .pipeline();

        assertEquals(List.of(), pipeline.operators());
    }

    @Test
    void stepsInTheWrongPlacesAreReported() {
        assertEquals(
                List.of(
                        "config/job.yaml:3:5: pipeline.0 must be a source, the step that reads the input, was sink",
                        "config/job.yaml:4:5: pipeline.1: a source may only be the first step",
                        "config/job.yaml:5:5: pipeline must end with a sink or a route, the step that writes the results, "
                                + "but its last step pipeline.2 is aggregate"),
                errors(
                        """
        pipeline:
          - sink: { topic: out }
          - source: { topic: in }
          - aggregate: { count: n }
        """));
    }

    @Test
    void aLoneSourceIsReportedAsMissingItsSink() {
        assertEquals(
                List.of("config/job.yaml:3:5: pipeline must end with a sink or a route, the step that "
                        + "writes the results, but its last step pipeline.0 is source"),
                errors("pipeline:\n  - source: { topic: in }\n"));
    }

    @Test
    void unknownStepTypeListsTheKnownOnes() {
        assertEquals(
                List.of(
                        "config/job.yaml:4:5: unknown step type agregate at pipeline.1, "
                                + "expected one of source, filter, map, key-by, dedupe, join, lookup, aggregate, process, route, sink; did you mean aggregate?"),
                errors(
                        """
        pipeline:
          - source: { topic: in }
          - agregate: { count: n }
          - sink: { topic: out }
        """));
    }

    @Test
    void settingsNotIndentedUnderTheStepAreExplained() {
        assertEquals(
                List.of("config/job.yaml:3:5: pipeline.0 must be a mapping with one key naming "
                        + "the step type (source, filter, map, key-by, dedupe, join, lookup, aggregate, process, route, sink), was a mapping with keys source, topic; indent "
                        + "the step's settings under source:"),
                errors(
                        """
        pipeline:
          - source:
            topic: in
          - sink: { topic: out }
        """));
    }

    @Test
    void stepsNeedTheirSettings() {
        assertEquals(
                List.of(
                        "config/job.yaml:3:13: pipeline.0.source must be a mapping of the step's settings, was in",
                        "config/job.yaml:5:10: pipeline.2.sink.topic is required: the Kafka topic to write"),
                errors(
                        """
        pipeline:
          - source: in
          - aggregate: { count: n }
          - sink:
        """));
    }

    @Test
    void topicsAndFormatsAreChecked() {
        assertEquals(
                List.of(
                        "config/job.yaml:4:20: pipeline.1.sink.topic must be a Kafka topic name (1 to 249 "
                                + "characters of a-z, A-Z, 0-9, '.', '_' and '-', not . or ..), was bad topic",
                        "config/job.yaml:4:39: pipeline.1.sink.format must be one of json, string, bytes, "
                                + "was xml"),
                errors(
                        """
        pipeline:
          - source: { topic: in }
          - sink: { topic: bad topic, format: xml }
        """));
    }

    @Test
    void anAggregateGroupsByTheKeyOnly() {
        assertEquals(
                List.of("config/job.yaml:4:22: pipeline.1.aggregate.by must be key (group by "
                        + "the record key), was user; to group by something else, re-key first with a "
                        + "key-by step"),
                errors(
                        """
        pipeline:
          - source: { topic: in }
          - aggregate: { by: user, count: n }
          - sink: { topic: out }
        """));
    }

    @Test
    void anAggregateNeedsSomethingToAggregate() {
        assertEquals(
                List.of("config/job.yaml:4:16: pipeline.1.aggregate needs at least one of "
                        + "count, sum, min, max, avg, first, last, was none"),
                errors(
                        """
        pipeline:
          - source: { topic: in }
          - aggregate: { key-as: user }
          - sink: { topic: out }
        """));
    }

    @Test
    void outputFieldsMustBeUnique() {
        assertEquals(
                List.of(
                        "config/job.yaml:6:22: pipeline.1.aggregate.sum.amount writes output field total, which "
                                + "pipeline.1.aggregate.count already writes; output field names must be unique",
                        "config/job.yaml:7:21: pipeline.1.aggregate.max.price writes output field key, which "
                                + "pipeline.1.aggregate.key-as (default key) already writes; output field names must "
                                + "be unique"),
                errors(
                        """
        pipeline:
          - source: { topic: in }
          - aggregate:
              count: total
              sum: { amount: total }
              max: { price: key }
          - sink: { topic: out }
        """));
    }

    @Test
    void anAggregateOfFieldsNeedsJsonRecords() {
        assertEquals(
                List.of("config/job.yaml:4:5: pipeline.1.aggregate reads fields of the records, "
                        + "which needs format json at the source, but pipeline.0.source.format is string; use "
                        + "json or only count"),
                errors(
                        """
        pipeline:
          - source: { topic: in, format: string }
          - aggregate: { avg: { amount: mean } }
          - sink: { topic: out }
        """));
    }

    @Test
    void aJoinOrLookupNeedsObjectRecordsUntilAMapMakesThem() {
        assertEquals(
                List.of("config/job.yaml:4:5: pipeline.1.lookup adds field user to the records, which needs format "
                        + "json at the source, but pipeline.0.source.format is bytes; use json, or make the "
                        + "value an object first with map.value"),
                errors(
                        """
        pipeline:
          - source: { topic: in, format: bytes }
          - lookup: { table: { topic: users, format: string }, as: user }
          - sink: { topic: out }
        """));
        assertEquals(
                List.of("config/job.yaml:5:5: pipeline.2.join adds field paid to the records, which needs format "
                        + "json at the source, but pipeline.0.source.format is string; use json, or make the "
                        + "value an object first with map.value"),
                errors(
                        """
        pipeline:
          - source: { topic: in, format: string }
          - filter: "value != ''"
          - join: { with: { topic: payments }, within: 1m, as: paid }
          - sink: { topic: out }
        """));
        WeirConfig mapped = Configs.load(
                """
        application: app
        pipeline:
          - source: { topic: in, format: string }
          - map: { value: "{'line': value}" }
          - lookup: { table: { topic: users, format: string }, as: user }
          - sink: { topic: out }
        """);
        assertEquals("user", ((LookupStep) mapped.pipeline().operators().get(1)).as());
    }

    @Test
    void theSinkCannotWriteTheSourceTopic() {
        assertEquals(
                List.of("config/job.yaml:5:20: pipeline.2.sink.topic must differ from the "
                        + "source topic in, or the job would read its own results, was in"),
                errors(
                        """
        pipeline:
          - source: { topic: in }
          - aggregate: { count: n }
          - sink: { topic: in }
        """));
    }

    @Test
    void everyAggregateKindIsBoundInFileOrder() {
        AggregateStep aggregate = (AggregateStep) Configs.load(
                        """
        application: app
        pipeline:
          - source: { topic: in }
          - aggregate:
              key-as: user
              sum: { amount: total, qty: items }
              min: { amount: smallest }
              max: { amount: largest }
              avg: { amount: mean }
              last: { seq: lastSeq }
          - sink: { topic: out }
        """)
                .pipeline()
                .operators()
                .get(0);

        assertEquals(Optional.empty(), aggregate.count());
        assertEquals(List.of("amount", "qty"), List.copyOf(aggregate.sum().keySet()));
        assertEquals(
                List.of("user", "total", "items", "smallest", "largest", "mean", "lastSeq"), aggregate.outputFields());
    }

    @Test
    void theRecordsRefuseWhatTheLoaderRefuses() {
        assertThrows(
                IllegalArgumentException.class,
                () -> new AggregateStep(
                        "key",
                        Optional.empty(),
                        Map.of(),
                        Map.of(),
                        Map.of(),
                        Map.of(),
                        Map.of(),
                        AggregateStep.Emit.EVERY_UPDATE));
        assertThrows(
                IllegalArgumentException.class,
                () -> new AggregateStep(
                        "n",
                        Optional.of("n"),
                        Map.of(),
                        Map.of(),
                        Map.of(),
                        Map.of(),
                        Map.of(),
                        AggregateStep.Emit.EVERY_UPDATE));
        assertThrows(IllegalArgumentException.class, () -> new SourceStep("a b", Format.JSON));
        assertThrows(NullPointerException.class, () -> new SinkStep("out", null));
    }

    @Test
    void lateRecordsGoToATopicTheJobNeitherReadsNorKeepsForItselfReportedAtTheTopic() {
        String window = "window: { tumbling: 10s }, count: n";
        assertEquals(
                List.of(
                        "config/job.yaml:4:70: pipeline.1.aggregate.late.topic must differ from e, which the job "
                                + "reads: its late records would come back; write them to another topic",
                        "config/job.yaml:7:70: pipeline.4.aggregate.late.topic must differ from p, which the job "
                                + "reads: its late records would come back; write them to another topic",
                        "config/job.yaml:8:70: pipeline.5.aggregate.late.topic must differ from app-repartition-1, "
                                + "which the job keeps for itself: its late records would come back; write them to "
                                + "another topic"),
                errors(
                        """
        pipeline:
          - source: { topic: e, timestamp: "value.ts" }
          - aggregate: { %1$s, late: { topic: e } }
          - lookup: { table: { topic: p }, as: p }
          - key-by: "value.k"
          - aggregate: { %1$s, late: { topic: p } }
          - aggregate: { %1$s, late: { topic: app-repartition-1 } }
          - sink: { topic: out }
        """
                                .formatted(window)));
    }

    @Test
    void noSinkWritesATopicWeirKeepsForTheJob() {
        assertEquals(
                List.of("config/job.yaml:5:5: pipeline.2: the job writes app-repartition-1, a topic Weir keeps "
                        + "for this job itself; write to another topic"),
                errors(
                        """
        pipeline:
          - source: { topic: in }
          - key-by: "value.k"
          - sink: { topic: app-repartition-1 }
        """));
        assertEquals(
                List.of("config/job.yaml:4:5: pipeline.1: the job writes app-checkpoints, a topic Weir keeps "
                        + "for this job itself; write to another topic"),
                errors(
                        """
        pipeline:
          - source: { topic: in }
          - route: [ { when: "true", sink: { topic: app-checkpoints } } ]
        """));
    }

    @Test
    void aJoinOrLookupMustComeBeforeAnyKeyByAndNoSinkMayWriteWhatTheyRead() {
        assertEquals(
                List.of(
                        "config/job.yaml:5:5: pipeline.2.join must come before any key-by (pipeline.1 re-keys the "
                                + "stream): payments is read with the source, partition p with partition p, so both "
                                + "must be keyed by the same key",
                        "config/job.yaml:6:5: pipeline.3: the job writes payments, which a join or lookup of the job "
                                + "reads; write to another topic"),
                errors(
                        """
        pipeline:
          - source: { topic: orders }
          - key-by: "value.user"
          - join: { with: { topic: payments }, within: 1m, as: payment }
          - sink: { topic: payments }
        """));
    }

    @Test
    void aJoinNeedsWithWithinAndAsAndKnowsItsTypes() {
        assertEquals(
                List.of(
                        "config/job.yaml:4:11: pipeline.1.join.with is required: the other stream's topic, such as "
                                + "{ topic: payments }",
                        "config/job.yaml:4:11: pipeline.1.join.within is required: how far apart in event time two "
                                + "records may be to join, such as 5m",
                        "config/job.yaml:4:11: pipeline.1.join.as is required: the field of the output that holds "
                                + "the other record",
                        "config/job.yaml:4:19: pipeline.1.join.type must be one of inner, left, was outer"),
                errors(
                        """
        pipeline:
          - source: { topic: orders }
          - join: { type: outer }
          - sink: { topic: out }
        """));
    }

    @Test
    void aLookupReadingTheSourceTopicIsRefused() {
        assertEquals(
                List.of("config/job.yaml:4:5: pipeline.1.lookup reads orders, which this job already reads; each "
                        + "topic may be read by one step"),
                errors(
                        """
        pipeline:
          - source: { topic: orders }
          - lookup: { table: { topic: orders }, as: o }
          - sink: { topic: out }
        """));
    }
}
