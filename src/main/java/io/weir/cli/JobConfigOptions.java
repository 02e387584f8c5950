package io.weir.cli;

import io.weir.app.Jobs;
import io.weir.config.ConfigException;
import io.weir.config.ConfigLoader;
import io.weir.config.ProcessStep;
import io.weir.config.WeirConfig;
import io.weir.logging.Secrets;
import io.weir.operators.Plugins;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** The {@code --config} and {@code --set} options every command that reads a job file shares. */
final class JobConfigOptions {
    /** The exit code for an invalid config file. */
    static final int INVALID = 2;

    @Option(
            names = {"-c", "--config"},
            required = true,
            description = "The job's YAML file.")
    Path config;

    @Option(names = "--set", description = "Override a setting: dotted.path=value (repeatable).")
    List<String> overrides = new ArrayList<>();

    /** The loaded config, or null after printing every error to stderr. */
    WeirConfig loadOrReport() {
        try {
            return new ConfigLoader().load(config, System.getenv(), overrides);
        } catch (ConfigException e) {
            System.err.println(Secrets.redact(e.getMessage()));
            return null;
        }
    }

    /**
     * Why a {@code process} step's class cannot be used (not found in the plugins, not a processor,
     * no public no-argument constructor...), or null: looked for as a run would, making one instance.
     */
    static String pluginProblem(WeirConfig config) {
        if (config.pipeline().operators().stream().noneMatch(ProcessStep.class::isInstance)) {
            return null;
        }
        try {
            Jobs.settings(config);
            return null;
        } catch (Plugins.PluginException e) {
            return Secrets.redact(e.getMessage());
        }
    }
}
