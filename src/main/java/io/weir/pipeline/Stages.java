package io.weir.pipeline;

import io.weir.config.AggregateStep;
import io.weir.config.DedupeStep;
import io.weir.config.FilterStep;
import io.weir.config.Format;
import io.weir.config.JoinStep;
import io.weir.config.KeyByStep;
import io.weir.config.LookupStep;
import io.weir.config.MapStep;
import io.weir.config.ProcessStep;
import io.weir.config.RouteStep;
import io.weir.config.SideInput;
import io.weir.config.SinkStep;
import io.weir.config.SourceStep;
import io.weir.config.Step;
import io.weir.dataflow.ChainedOperator;
import io.weir.dataflow.Codec;
import io.weir.dataflow.Operator;
import io.weir.dataflow.Stage;
import io.weir.dataflow.TimestampAssigner;
import io.weir.dataflow.Watermarks;
import io.weir.expr.Expression;
import io.weir.operators.Aggregate;
import io.weir.operators.Codecs;
import io.weir.operators.Dedupe;
import io.weir.operators.Filter;
import io.weir.operators.Join;
import io.weir.operators.Lookup;
import io.weir.operators.MapValue;
import io.weir.operators.Plugins;
import io.weir.operators.RecordFunction;
import io.weir.operators.Repartition;
import io.weir.operators.Route;
import io.weir.operators.Sink;
import io.weir.operators.WindowedAggregate;
import io.weir.operators.Windows;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Turns a {@link Plan} into the stages the runtime (and {@code weir test}) runs: each step becomes
 * a factory of its operator, made fresh for every task.
 */
public final class Stages {
    private Stages() {}

    /** Makes the operator of a {@code process} step: its path in the file, class name and settings. */
    @FunctionalInterface
    public interface Processors {
        Supplier<Operator> make(String step, String className, Map<String, Object> with);
    }

    /**
     * @param processors makes the operator of a {@code process} step from its class name and settings
     */
    public static List<Stage> of(Plan plan, String deadLetterTopic, Processors processors) {
        List<Stage> stages = new ArrayList<>();
        int count = plan.stages().size();
        for (Plan.StagePlan sp : plan.stages()) {
            List<ChainedOperator> chain = new ArrayList<>();
            for (Plan.StepPlan step : sp.steps()) {
                chain.add(new ChainedOperator(step.path(), factory(plan, sp, step, processors)));
            }
            int i = sp.index();
            boolean later = false;
            for (int j = i + 1; j < count; j++) {
                later |= Plan.needsEventTime(plan.stages().get(j));
            }
            boolean eventTime = Plan.needsEventTime(sp) || later;
            SourceStep source = plan.source();
            Watermarks watermarks = new Watermarks(
                    i == 0 ? source.timestamp().map(EventTimestamps::new).orElse(null) : null,
                    i == 0
                            ? source.watermark()
                                    .map(w -> w.maxOutOfOrderness().toMillis())
                                    .orElse(0L)
                            : 0,
                    i == 0
                            ? source.watermark()
                                    .flatMap(SourceStep.Watermark::idleAfter)
                                    .map(Duration::toMillis)
                                    .orElse(0L)
                            : 0,
                    i > 0 && eventTime,
                    later ? sp.repartitionTopic() : null);
            List<Stage.SideInput> sides = new ArrayList<>();
            List<String> inputs = new ArrayList<>(List.of(sp.input()));
            for (int k = 0; k < sp.steps().size(); k++) {
                Plan.StepPlan step = sp.steps().get(k);
                SideInput side = Plan.sideInput(step.step());
                if (side != null) {
                    boolean table = step.step() instanceof LookupStep;
                    TimestampAssigner assigner = side.timestamp()
                            .<TimestampAssigner>map(
                                    t -> new EventTimestamps(t, step.path() + sideKey(table) + ".timestamp"))
                            .orElse(table ? null : watermarks.timestamps());
                    String tsStep = side.timestamp().isPresent()
                            ? step.path() + sideKey(table) + ".timestamp"
                            : EventTimestamps.STEP;
                    sides.add(new Stage.SideInput(
                            side.topic(), codec(side.keyFormat()), codec(side.format()), assigner, tsStep, k, table));
                    inputs.add(side.topic());
                }
            }
            stages.add(new Stage(
                    sp.name(),
                    inputs,
                    codec(sp.keyFormat()),
                    codec(sp.valueFormat()),
                    chain,
                    deadLetterTopic,
                    eventTime,
                    watermarks,
                    sides));
        }
        return stages;
    }

    private static Supplier<Operator> factory(
            Plan plan, Plan.StagePlan stage, Plan.StepPlan step, Processors processors) {
        String path = step.path();
        Step s = step.step();
        if (s instanceof FilterStep f) {
            RecordFunction condition = ExpressionFunction.condition(f.condition(), path);
            return () -> new Filter(condition);
        } else if (s instanceof MapStep m) {
            if (m.value().isPresent()) {
                RecordFunction value = ExpressionFunction.of(m.value().get(), path);
                return () -> MapValue.replacing(value);
            }
            Map<String, RecordFunction> set = new LinkedHashMap<>();
            m.set().forEach((field, e) -> set.put(field, ExpressionFunction.of(e, path + ".set." + field)));
            return () -> MapValue.editing(set, m.drop());
        } else if (s instanceof KeyByStep k) {
            RecordFunction key = ExpressionFunction.of(k.by(), path);
            String topic = Plan.repartitionTopic(plan.application(), stage.index() + 1);
            Codec value = codec(stage.repartitionFormat());
            return () -> new Repartition(key, topic, value);
        } else if (s instanceof DedupeStep d) {
            RecordFunction id = ExpressionFunction.of(d.by(), path);
            long within = d.within().toMillis();
            return () -> new Dedupe(id, within);
        } else if (s instanceof AggregateStep a) {
            Aggregate.Spec spec = new Aggregate.Spec(
                    a.keyAs(), a.count().orElse(null), a.sum(), a.min(), a.max(), a.avg(), a.first(), a.last());
            if (a.window().isPresent()) {
                Windows windows = windows(a.window().get());
                long lateness = a.lateness().toMillis();
                WindowedAggregate.Emit emit = a.emit() == AggregateStep.Emit.ON_CLOSE
                        ? WindowedAggregate.Emit.ON_CLOSE
                        : WindowedAggregate.Emit.EVERY_UPDATE;
                String late = a.lateTopic().orElse(null);
                return () -> new WindowedAggregate(spec, windows, lateness, emit, late);
            }
            return () -> new Aggregate(spec);
        } else if (s instanceof ProcessStep p) {
            try {
                return processors.make(path, p.className(), p.with());
            } catch (Plugins.PluginException e) {
                throw e.at(p.at());
            }
        } else if (s instanceof JoinStep j) {
            Codec other = codec(j.with().format());
            long within = j.within().toMillis();
            boolean left = j.joinType() == JoinStep.JoinType.LEFT;
            return () -> new Join(j.with().topic(), other, within, left, j.as());
        } else if (s instanceof LookupStep l) {
            Codec table = codec(l.table().format());
            boolean left = l.joinType() == JoinStep.JoinType.LEFT;
            return () -> new Lookup(l.table().topic(), table, left, l.as());
        } else if (s instanceof SinkStep sink) {
            return () -> sink(sink, path);
        } else if (s instanceof RouteStep r) {
            return () -> {
                List<Route.Case> cases = new ArrayList<>();
                for (int i = 0; i < r.cases().size(); i++) {
                    RouteStep.RouteCase c = r.cases().get(i);
                    String at = path + "." + i;
                    cases.add(new Route.Case(ExpressionFunction.condition(c.when(), at + ".when"), sink(c.sink(), at)));
                }
                return new Route(
                        cases,
                        r.otherwise().map(o -> sink(o, path + ".default")).orElse(null));
            };
        }
        throw new IllegalArgumentException("no operator for step " + s.type() + " at " + path);
    }

    private static String sideKey(boolean table) {
        return table ? ".table" : ".with";
    }

    static Windows windows(AggregateStep.Window w) {
        return switch (w.kind()) {
            case TUMBLING -> Windows.tumbling(w.size().toMillis());
            case HOPPING -> Windows.hopping(w.size().toMillis(), w.advance().toMillis());
            case SESSION -> Windows.session(w.gap().toMillis());
        };
    }

    private static Sink sink(SinkStep sink, String path) {
        Expression key = sink.key().orElse(null);
        return new Sink(
                sink.topic(),
                codec(sink.keyFormat()),
                codec(sink.format()),
                key == null ? null : ExpressionFunction.of(key, path + ".key"));
    }

    static Codec codec(Format format) {
        return Codecs.named(Plan.name(format));
    }
}
