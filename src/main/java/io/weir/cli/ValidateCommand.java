package io.weir.cli;

import io.weir.config.ConfigException;
import io.weir.config.ConfigLoader;
import io.weir.config.WeirConfig;
import io.weir.logging.Secrets;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code weir validate}: loads a job configuration as a run would, with the environment's
 * variables and the given overrides, and reports either a one-line summary (exit code 0) or every
 * problem found, one per line as {@code file:line:column: message} on standard error (exit code
 * 2), without contacting Kafka.
 */
@Command(
        name = "validate",
        mixinStandardHelpOptions = true,
        description = "Checks a job configuration file and reports every problem found.")
public final class ValidateCommand implements Callable<Integer> {

    /** The exit code for a configuration with problems. */
    public static final int INVALID = 2;

    @Option(
            names = "--config",
            required = true,
            paramLabel = "FILE",
            description = "The job's YAML configuration file.")
    private Path config;

    @Option(
            names = "--set",
            paramLabel = "KEY=VALUE",
            description = "Overrides a setting by its dotted path, e.g. processing.threads=4 or "
                    + "pipeline.1.aggregate.emit=every-update; repeatable, later ones win.")
    private List<String> overrides = new ArrayList<>();

    @Spec
    private CommandSpec spec;

    private final Map<String, String> env;

    public ValidateCommand() {
        this(System.getenv());
    }

    /** A command reading {@code ${NAME}} variables from {@code env} instead of the process's. */
    ValidateCommand(Map<String, String> env) {
        this.env = Map.copyOf(env);
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            WeirConfig loaded = new ConfigLoader().load(config, env, overrides);
            String plugins = JobConfigOptions.pluginProblem(loaded);
            if (plugins != null) {
                err.println(plugins);
                err.flush();
                return INVALID;
            }
            out.printf(
                    "ok: %s (application %s, %d steps)%n",
                    config, loaded.application(), loaded.pipeline().steps().size());
            out.flush();
            return 0;
        } catch (ConfigException e) {
            err.println(Secrets.redact(e.getMessage()));
            err.flush();
            return INVALID;
        }
    }
}
