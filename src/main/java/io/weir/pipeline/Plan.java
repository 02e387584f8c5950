package io.weir.pipeline;

import io.weir.config.AggregateStep;
import io.weir.config.DedupeStep;
import io.weir.config.FilterStep;
import io.weir.config.Format;
import io.weir.config.JoinStep;
import io.weir.config.KeyByStep;
import io.weir.config.LookupStep;
import io.weir.config.MapStep;
import io.weir.config.OperatorStep;
import io.weir.config.ProcessStep;
import io.weir.config.RouteStep;
import io.weir.config.SideInput;
import io.weir.config.SinkStep;
import io.weir.config.SourceStep;
import io.weir.config.Step;
import io.weir.config.WeirConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A job cut into stages. Stage 0 reads the source topic; every {@code key-by} ends its stage with a
 * write to {@code <app>-repartition-<n>}, which stage n reads (keys in JSON; values in the
 * source's format, or in JSON once a step of the stage replaced them). Each stage's tasks are
 * stage × partition; the stage's name prefixes their names, and stage 0 is named after the
 * application so the running-totals job keeps its task names.
 */
public record Plan(String application, SourceStep source, List<StagePlan> stages, List<TopicPlan> topics) {

    public Plan {
        stages = List.copyOf(stages);
        topics = List.copyOf(topics);
    }

    /** What a topic is to the job. */
    public enum Role {
        SOURCE,
        SINK,
        REPARTITION,
        DEAD_LETTER,
        CHECKPOINTS,
        SNAPSHOTS
    }

    /**
     * A topic the job reads or writes. {@code partitions} 0 means as many as the source has, for
     * topics created at start; the source's own count is only known from the broker.
     */
    public record TopicPlan(String name, Role role, int partitions) {}

    /** One step as it runs: its place in the file, what it does and what state it keeps. */
    public record StepPlan(String path, Step step, String does, String state) {}

    /**
     * A stage: its input, the formats its records are read with, and its steps in order; a stage
     * that ends with a key-by writes its values to the repartition topic in {@code repartitionFormat}
     * (JSON once a step replaced the value, else the format it read), which the next stage reads.
     */
    public record StagePlan(
            int index,
            String name,
            String input,
            Format keyFormat,
            Format valueFormat,
            List<StepPlan> steps,
            String repartitionTopic,
            Format repartitionFormat) {
        public StagePlan {
            steps = List.copyOf(steps);
        }

        /** The topics the stage writes: sinks, the next repartition topic and the dead-letter topic. */
        public List<String> writes(String deadLetterTopic) {
            List<String> out = new ArrayList<>();
            for (StepPlan s : steps) {
                if (s.step() instanceof KeyByStep) {
                    out.add(repartitionTopic + " (internal)");
                } else if (s.step() instanceof SinkStep sink) {
                    out.add(sink.topic());
                } else if (s.step() instanceof AggregateStep a && a.lateTopic().isPresent()) {
                    out.add(a.lateTopic().get() + " (late records)");
                } else if (s.step() instanceof RouteStep route) {
                    route.sinks().forEach(sink -> out.add(sink.topic()));
                }
            }
            out.add(deadLetterTopic);
            return out;
        }
    }

    /** The name of the repartition topic stage {@code n} reads. */
    public static String repartitionTopic(String application, int n) {
        return KeyByStep.topic(application, n);
    }

    public static Plan of(WeirConfig config) {
        String app = config.application();
        var pipeline = config.pipeline();
        List<StagePlan> stages = new ArrayList<>();
        List<TopicPlan> topics = new ArrayList<>();
        topics.add(new TopicPlan(pipeline.source().topic(), Role.SOURCE, 0));
        String input = pipeline.source().topic();
        Format keyFormat = pipeline.source().keyFormat();
        Format valueFormat = pipeline.source().format();
        // The format of the values as the steps so far leave them: the stage reads valueFormat, and
        // what it writes to a repartition topic is in this one.
        Format produced = valueFormat;
        List<StepPlan> steps = new ArrayList<>();
        int index = 1;
        for (OperatorStep step : pipeline.operators()) {
            SideInput side = sideInput(step);
            if (side != null) {
                topics.add(new TopicPlan(side.topic(), Role.SOURCE, 0));
            }
            String path = "pipeline." + index++ + "." + step.type();
            steps.add(new StepPlan(path, step, describe(step), state(step)));
            // The steps that replace the value (as the binder types what follows them): the value
            // is then a JSON model value, whatever the source's format. A join or lookup needs an
            // object already, and filter, dedupe and a map's set and drop keep what they get.
            if (step instanceof MapStep map && map.value().isPresent()
                    || step instanceof AggregateStep
                    || step instanceof ProcessStep) {
                produced = Format.JSON;
            }
            if (step instanceof KeyByStep keyBy) {
                int n = stages.size() + 1;
                String topic = repartitionTopic(app, n);
                topics.add(new TopicPlan(
                        topic, Role.REPARTITION, keyBy.partitions().orElse(0)));
                stages.add(stage(app, stages.size(), input, keyFormat, valueFormat, steps, topic, produced));
                steps = new ArrayList<>();
                input = topic;
                keyFormat = Format.JSON;
                valueFormat = produced;
            }
        }
        var terminal = pipeline.terminal();
        steps.add(new StepPlan("pipeline." + index + "." + terminal.type(), terminal, describe(terminal), "none"));
        stages.add(stage(app, stages.size(), input, keyFormat, valueFormat, steps, null, null));
        List<String> written = new ArrayList<>();
        pipeline.sinks().forEach(sink -> written.add(sink.topic()));
        for (OperatorStep step : pipeline.operators()) {
            if (step instanceof AggregateStep a) {
                a.lateTopic().ifPresent(written::add);
            }
        }
        for (String topic : written) {
            if (topics.stream().noneMatch(t -> t.name().equals(topic))) {
                topics.add(new TopicPlan(topic, Role.SINK, 0));
            }
        }
        topics.add(new TopicPlan(config.deadLetter().topic(), Role.DEAD_LETTER, 0));
        topics.add(new TopicPlan(app + "-checkpoints", Role.CHECKPOINTS, 1));
        topics.add(new TopicPlan(app + "-snapshots", Role.SNAPSHOTS, 4));
        return new Plan(app, pipeline.source(), stages, topics);
    }

    /** The other topic a join or lookup reads; null for any other step. */
    public static SideInput sideInput(Step step) {
        if (step instanceof JoinStep j) {
            return j.with();
        } else if (step instanceof LookupStep l) {
            return l.table();
        }
        return null;
    }

    /**
     * Whether a stage's operators use event time: a dedupe, a custom operator (its timers), a
     * windowed aggregate. The stages before it then send their watermarks on.
     */
    public static boolean needsEventTime(Plan.StagePlan stage) {
        for (Plan.StepPlan step : stage.steps()) {
            if (step.step() instanceof DedupeStep
                    || step.step() instanceof JoinStep
                    || step.step() instanceof ProcessStep
                    || (step.step() instanceof AggregateStep a && a.window().isPresent())) {
                return true;
            }
        }
        return false;
    }

    /**
     * How a stage learns event time, for {@code weir explain}; null when it needs none (no
     * event-time operator in it or after it).
     */
    public String eventTime(StagePlan stage) {
        boolean later = false;
        for (StagePlan s : stages) {
            later |= s.index() > stage.index() && needsEventTime(s);
        }
        if (!later && !needsEventTime(stage)) {
            return null;
        }
        String how;
        if (stage.index() == 0) {
            how = source.timestamp().map(t -> "timestamp = " + t.text()).orElse("Kafka record timestamps")
                    + "; watermark per partition = highest timestamp − "
                    + source.watermark()
                            .map(w -> w.maxOutOfOrderness().toMillis())
                            .orElse(0L) + " ms"
                    + source.watermark()
                            .flatMap(SourceStep.Watermark::idleAfter)
                            .map(d -> ", a partition idle for " + d.toMillis() + " ms stops holding it back")
                            .orElse("")
                    + "; task watermark = lowest over its partitions";
        } else {
            how = "watermark = lowest over the upstream tasks' markers in " + stage.input();
        }
        return later ? how + "; sends its watermark downstream as markers in " + stage.repartitionTopic() : how;
    }

    private static StagePlan stage(
            String app,
            int index,
            String input,
            Format keyFormat,
            Format valueFormat,
            List<StepPlan> steps,
            String repartitionTopic,
            Format repartitionFormat) {
        String name = index == 0 ? app : app + "-stage" + index;
        return new StagePlan(index, name, input, keyFormat, valueFormat, steps, repartitionTopic, repartitionFormat);
    }

    private static String describe(Step step) {
        if (step instanceof FilterStep f) {
            return "keeps records where " + f.condition().text();
        } else if (step instanceof MapStep m) {
            if (m.value().isPresent()) {
                return "replaces the value with " + m.value().get().text();
            }
            List<String> parts = new ArrayList<>();
            m.set().forEach((field, e) -> parts.add(field + " = " + e.text()));
            m.drop().forEach(field -> parts.add("drops " + field));
            return "sets " + String.join(", ", parts);
        } else if (step instanceof KeyByStep k) {
            return "re-keys by " + k.by().text() + " and writes to the repartition topic (ends the stage)";
        } else if (step instanceof DedupeStep d) {
            return "drops a record whose " + d.by().text() + " was seen within "
                    + d.within().toMillis() + " ms";
        } else if (step instanceof AggregateStep a && a.window().isPresent()) {
            AggregateStep.Window w = a.window().get();
            String window =
                    switch (w.kind()) {
                        case TUMBLING -> "tumbling " + w.size().toMillis() + " ms";
                        case HOPPING ->
                            "hopping " + w.size().toMillis() + " ms every "
                                    + w.advance().toMillis() + " ms";
                        case SESSION -> "session, gap " + w.gap().toMillis() + " ms";
                    };
            return "aggregate per key and event-time window (" + window + ", lateness "
                    + a.lateness().toMillis()
                    + " ms, emit " + (a.emit() == AggregateStep.Emit.ON_CLOSE ? "on-close" : "every-update")
                    + ", late records to " + a.lateTopic().orElse("the dead-letter topic") + "): "
                    + String.join(", ", a.outputFields());
        } else if (step instanceof AggregateStep a) {
            return "running aggregate per key: " + String.join(", ", a.outputFields());
        } else if (step instanceof ProcessStep p) {
            return "custom operator " + p.className();
        } else if (step instanceof JoinStep j) {
            return name(j.joinType()) + " join by key with " + j.with().topic() + " (read with the source, "
                    + "partition p with p) of records at most " + j.within().toMillis()
                    + " ms apart in event time; the other record goes into field " + j.as()
                    + (j.joinType() == JoinStep.JoinType.LEFT
                            ? "; a record without a partner is sent with " + j.as() + " null when its window closes"
                            : "");
        } else if (step instanceof LookupStep l) {
            return name(l.joinType()) + " lookup of the key in table "
                    + l.table().topic()
                    + " (read with the source, partition p with p); its value goes into field " + l.as()
                    + (l.joinType() == JoinStep.JoinType.LEFT
                            ? " (null when the key is absent)"
                            : "; records whose key is absent are dropped");
        } else if (step instanceof SinkStep s) {
            return "writes to " + s.topic() + " (" + name(s.format()) + ", key " + name(s.keyFormat())
                    + s.key().map(k -> " = " + k.text()).orElse("") + ")";
        } else if (step instanceof RouteStep r) {
            List<String> cases = new ArrayList<>();
            r.cases().forEach(c -> cases.add(c.when().text() + " → " + c.sink().topic()));
            cases.add("otherwise → " + r.otherwise().map(SinkStep::topic).orElse("dropped"));
            return "routes: " + String.join("; ", cases);
        }
        return step.type();
    }

    private static String state(Step step) {
        if (step instanceof DedupeStep d) {
            return "per key: ids seen in the last " + d.within().toMillis()
                    + " ms (map state, expired by event-time timers)";
        } else if (step instanceof AggregateStep a && a.window().isPresent()) {
            return "per key: one row per open window (map state, dropped at the close by event-time timers)";
        } else if (step instanceof AggregateStep) {
            return "per key: one row of aggregates (value state)";
        } else if (step instanceof JoinStep j) {
            return "per key: the records of both sides of the last "
                    + j.within().toMillis()
                    + " ms (map state, dropped by event-time timers once the watermark passes them)";
        } else if (step instanceof LookupStep) {
            return "per key: the table's value, and its versions later than the stream (value states)";
        } else if (step instanceof ProcessStep) {
            return "per key: whatever the operator declares (value, map, list state and timers)";
        }
        return "none";
    }

    static String name(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }
}
