package io.weir.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code weir} command: dispatches to its subcommands. */
@Command(
        name = "weir",
        mixinStandardHelpOptions = true,
        versionProvider = WeirCommand.Version.class,
        description = "Kafka-native stream processing with exactly-once results.",
        subcommands = {
            RunCommand.class,
            ValidateCommand.class,
            ExplainCommand.class,
            TestCommand.class,
            DevCommand.class,
            GenerateCommand.class,
            VerifyCommand.class,
            CheckpointsCommand.class,
            CommandLine.HelpCommand.class
        })
public final class WeirCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(new CommandLine(new WeirCommand()).execute(args));
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** The version from the jar manifest, or "dev" when run from classes. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = WeirCommand.class.getPackage().getImplementationVersion();
            return new String[] {"weir " + (v == null ? "dev" : v)};
        }
    }
}
