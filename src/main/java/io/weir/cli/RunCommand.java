package io.weir.cli;

import io.weir.app.Instance;
import io.weir.app.InstanceSettings;
import io.weir.app.Jobs;
import io.weir.config.WeirConfig;
import io.weir.logging.Secrets;
import io.weir.operators.Plugins;
import io.weir.ops.Ops;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;

/** {@code weir run}: runs the job of a config file until stopped (SIGTERM) or a fatal error. */
@Command(name = "run", description = "Run the job described by a config file.")
public final class RunCommand implements Callable<Integer> {
    @picocli.CommandLine.Mixin
    JobConfigOptions job;

    @Override
    public Integer call() throws Exception {
        WeirConfig loaded = job.loadOrReport();
        if (loaded == null) {
            return JobConfigOptions.INVALID;
        }
        InstanceSettings settings;
        try {
            settings = Jobs.settings(loaded);
        } catch (Plugins.PluginException e) {
            report("weir: cannot start: " + Secrets.redact(e.getMessage()));
            return JobConfigOptions.INVALID;
        }
        Instance instance = new Instance(settings, Jobs.clients(loaded));
        try (Ops ops = new Ops(instance)) {
            if (loaded.http().enabled()) {
                try {
                    int port = ops.serve(loaded.http().port());
                    // A log line, not stdout: with --log-format json every line must be a JSON object.
                    LoggerFactory.getLogger(RunCommand.class)
                            .info(
                                    "health, metrics and checkpoints on http://localhost:{}/ (/health/live,"
                                            + " /health/ready, /metrics, /checkpoints)",
                                    port);
                } catch (java.io.IOException e) {
                    report("weir: cannot start: " + e.getMessage());
                    return 1;
                }
            }
            return runUntilStopped(instance);
        }
    }

    /**
     * The last word of a run that could not start or stopped on a fatal error: on standard error, or,
     * with {@code --log-format json}, as an error log line, so that every line a log pipeline
     * collects is a JSON object.
     */
    static void report(String line) {
        if ("json".equals(System.getProperty("WEIR_LOG_FORMAT"))) {
            LoggerFactory.getLogger(RunCommand.class).error(line);
        } else {
            System.err.println(line);
        }
    }

    /** Starts the instance, stops it on SIGTERM/Ctrl-C; non-zero when it stopped on a fatal error. */
    static int runUntilStopped(Instance instance) throws InterruptedException {
        try {
            instance.start();
        } catch (Exception e) {
            report("weir: cannot start: " + Secrets.redact(e.getMessage()));
            instance.close();
            return 1;
        }
        // SIGTERM (Kubernetes stopping the pod): commit what was read, then stop.
        Thread hook = new Thread(() -> instance.stopGracefully(java.time.Duration.ofSeconds(20)), "weir-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        Throwable fatal = instance.awaitTermination();
        if (fatal != null) {
            report("weir: stopped: " + Secrets.redact(String.valueOf(fatal)));
            return 1;
        }
        return 0;
    }
}
