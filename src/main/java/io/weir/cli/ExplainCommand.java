package io.weir.cli;

import io.weir.config.SideInput;
import io.weir.config.WeirConfig;
import io.weir.pipeline.Plan;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code weir explain}: prints the plan of a job without contacting Kafka: its stages, the tasks of
 * each, the topics each reads and writes (internal ones too) and the state each step keeps.
 */
@Command(
        name = "explain",
        mixinStandardHelpOptions = true,
        description = "Prints a job's plan: stages, tasks, topics read and written, state per step.")
public final class ExplainCommand implements Callable<Integer> {
    @Mixin
    JobConfigOptions job;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        WeirConfig config = job.loadOrReport();
        if (config == null) {
            return JobConfigOptions.INVALID;
        }
        String plugins = JobConfigOptions.pluginProblem(config);
        if (plugins != null) {
            spec.commandLine().getErr().println(plugins);
            spec.commandLine().getErr().flush();
            return JobConfigOptions.INVALID;
        }
        PrintWriter out = spec.commandLine().getOut();
        out.print(render(config, Plan.of(config)));
        out.flush();
        return 0;
    }

    static String render(WeirConfig config, Plan plan) {
        StringBuilder b = new StringBuilder();
        var p = config.processing();
        b.append("job ")
                .append(plan.application())
                .append(": ")
                .append(plan.stages().size())
                .append(plan.stages().size() == 1 ? " stage, " : " stages, ")
                .append(p.guarantee().name().toLowerCase().replace('_', '-'))
                .append(", checkpoint every ")
                .append(p.checkpoint().interval().toMillis())
                .append(" ms\n");
        String deadLetters = config.deadLetter().topic();
        for (Plan.StagePlan stage : plan.stages()) {
            b.append("\nstage ")
                    .append(stage.index())
                    .append(" (")
                    .append(stage.name())
                    .append(")\n");
            b.append("  reads   ")
                    .append(stage.input())
                    .append(stage.index() == 0 ? "" : " (internal, read_committed)")
                    .append(" — key ")
                    .append(stage.keyFormat().name().toLowerCase())
                    .append(", value ")
                    .append(stage.valueFormat().name().toLowerCase())
                    .append('\n');
            for (Plan.StepPlan step : stage.steps()) {
                SideInput side = Plan.sideInput(step.step());
                if (side != null) {
                    b.append("  reads   ")
                            .append(side.topic())
                            .append(" for ")
                            .append(step.path())
                            .append(", partition p with partition p of ")
                            .append(stage.input())
                            .append(" — key ")
                            .append(side.keyFormat().name().toLowerCase())
                            .append(", value ")
                            .append(side.format().name().toLowerCase())
                            .append('\n');
                }
            }
            b.append("  tasks   ")
                    .append(stage.name())
                    .append("-<p>, one per partition of ")
                    .append(stage.input())
                    .append('\n');
            String eventTime = plan.eventTime(stage);
            if (eventTime != null) {
                b.append("  time    ").append(eventTime).append('\n');
            }
            for (Plan.StepPlan step : stage.steps()) {
                b.append("  ")
                        .append(step.path())
                        .append(": ")
                        .append(step.does())
                        .append('\n');
                if (!step.state().equals("none")) {
                    b.append("      state: ").append(step.state()).append('\n');
                }
            }
            b.append("  writes  ")
                    .append(String.join(", ", stage.writes(deadLetters)))
                    .append('\n');
        }
        b.append("\ntopics\n");
        for (Plan.TopicPlan t : plan.topics()) {
            b.append("  ")
                    .append(t.name())
                    .append(" — ")
                    .append(t.role().name().toLowerCase().replace('_', '-'))
                    .append(
                            switch (t.role()) {
                                case SOURCE -> ", must exist";
                                case CHECKPOINTS, SNAPSHOTS -> ", compacted, created at start";
                                case REPARTITION ->
                                    ", created at start with "
                                            + (t.partitions() == 0
                                                    ? "the source's partition count"
                                                    : t.partitions() + " partitions")
                                            + ", purged up to what checkpoints consumed";
                                default -> ", created at start when missing";
                            })
                    .append('\n');
        }
        return b.toString();
    }
}
