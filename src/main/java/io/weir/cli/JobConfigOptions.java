package io.weir.cli;

import io.weir.config.ConfigException;
import io.weir.config.ConfigLoader;
import io.weir.config.WeirConfig;
import io.weir.logging.Secrets;
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
}
