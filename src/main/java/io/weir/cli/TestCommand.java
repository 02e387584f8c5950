package io.weir.cli;

import io.weir.app.Jobs;
import io.weir.config.WeirConfig;
import io.weir.operators.Plugins;
import io.weir.pipeline.Cases;
import io.weir.pipeline.Plan;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code weir test}: runs a job in-process, without Kafka, over the input records of a cases file
 * and compares what each sink and the dead-letter topic receive with the expected records (per
 * key, in order). Exit code 0 when every case passes, 1 on a mismatch (with a readable diff), 2 for
 * an invalid job or cases file.
 */
@Command(
        name = "test",
        mixinStandardHelpOptions = true,
        description = "Runs a job in-process over the input of a cases file and compares its output.")
public final class TestCommand implements Callable<Integer> {
    @Mixin
    JobConfigOptions job;

    @Option(names = "--cases", required = true, paramLabel = "FILE", description = "The YAML cases file.")
    Path cases;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        WeirConfig config = job.loadOrReport();
        if (config == null) {
            return JobConfigOptions.INVALID;
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Plan plan = Plan.of(config);
        List<Cases.Result> results;
        try {
            results = new Cases(
                            plan,
                            Jobs.settings(config, plan).stages(),
                            config.deadLetter().topic())
                    .run(cases);
        } catch (Cases.CasesException | Plugins.PluginException e) {
            err.println(io.weir.logging.Secrets.redact(e.getMessage()));
            err.flush();
            return JobConfigOptions.INVALID;
        }
        int failed = 0;
        for (Cases.Result r : results) {
            if (r.passed()) {
                out.println("PASS " + r.name());
            } else {
                failed++;
                out.println("FAIL " + r.name());
                r.differences().forEach(d -> out.println("  " + d));
            }
        }
        out.println((results.size() - failed) + " passed, " + failed + " failed");
        out.flush();
        return failed == 0 ? 0 : 1;
    }
}
