package io.weir.cli;

import io.weir.logging.Secrets;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code weir} command: dispatches to its subcommands. */
@Command(
        name = "weir",
        // --help and --version on every subcommand too (weir run --help), with this version.
        scope = CommandLine.ScopeType.INHERIT,
        mixinStandardHelpOptions = true,
        versionProvider = WeirCommand.Version.class,
        description = "Kafka-native stream processing with exactly-once results.")
public final class WeirCommand implements Runnable {
    /**
     * The subcommands, in the order usage lists them. Picocli builds a command's model by
     * reflection when it is added, which for all of them was a third of the main thread's CPU on
     * a restart before the instance began to start: {@link #commandLine(String...)} adds only the
     * one a command line names.
     */
    private static final java.util.Map<String, java.util.function.Supplier<Object>> SUBCOMMANDS = subcommands();

    private static java.util.Map<String, java.util.function.Supplier<Object>> subcommands() {
        java.util.Map<String, java.util.function.Supplier<Object>> all = new java.util.LinkedHashMap<>();
        all.put("run", RunCommand::new);
        all.put("validate", ValidateCommand::new);
        all.put("explain", ExplainCommand::new);
        all.put("test", TestCommand::new);
        all.put("dev", DevCommand::new);
        all.put("generate", GenerateCommand::new);
        all.put("verify", VerifyCommand::new);
        all.put("checkpoints", CheckpointsCommand::new);
        all.put("txn", TxnCommand::new);
        all.put("rescale", RescaleCommand::new);
        all.put("help", CommandLine.HelpCommand::new);
        return java.util.Collections.unmodifiableMap(all);
    }

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** The log formats {@link io.weir.logging.WeirEncoder} writes. */
    static final java.util.Set<String> LOG_FORMATS = java.util.Set.of("text", "json");

    @CommandLine.Option(
            names = "--log-format",
            scope = CommandLine.ScopeType.INHERIT,
            paramLabel = "text|json",
            description = "Log lines as text (default) or one JSON object per line; "
                    + "also the environment variable WEIR_LOG_FORMAT.")
    void logFormat(String format) {
        if (!LOG_FORMATS.contains(format)) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--log-format must be text or json, was " + format);
        }
    }

    public static void main(String[] args) {
        String problem = chooseLogFormat(args, System.getenv("WEIR_LOG_FORMAT"));
        if (problem != null) {
            System.err.println("weir: " + problem);
            System.exit(2);
        }
        java.util.List<String> words = java.util.List.of(args);
        if (words.contains("run") || words.contains("dev")) {
            // Logging first, here, with the format chosen: the classes loaded next log from their
            // static state, and logging started by another thread meanwhile would have SLF4J queue
            // this thread's calls and say so on stderr, a line that is no JSON.
            org.slf4j.LoggerFactory.getILoggerFactory();
            io.weir.kafka.ClientClasses.loadInBackground(); // beside the configuration's reading
        }
        System.exit(commandLine(args).execute(args));
    }

    /**
     * The command line as {@code main} runs {@code args}: with only the subcommand they name when
     * they name one (other than {@code help}), else with all of them, as usage and the error for
     * an unknown command list them. An exception a command throws is printed with its stack trace,
     * secrets masked (a Kafka client's message may quote its configuration).
     */
    public static CommandLine commandLine(String... args) {
        CommandLine weir = new CommandLine(new WeirCommand());
        String named = subcommandNamed(args);
        if (named != null && !named.equals("help")) {
            weir.addSubcommand(named, SUBCOMMANDS.get(named).get());
        } else {
            SUBCOMMANDS.forEach((name, command) -> weir.addSubcommand(name, command.get()));
        }
        return weir.setExecutionExceptionHandler((e, cli, parsed) -> {
            java.io.StringWriter trace = new java.io.StringWriter();
            e.printStackTrace(new java.io.PrintWriter(trace));
            cli.getErr().print(Secrets.redact(trace.toString()));
            cli.getErr().flush();
            return cli.getCommandSpec().exitCodeOnExecutionException();
        });
    }

    /**
     * The subcommand {@code args} name: their first word that is not an option or its value, if
     * known; none when help or the version is asked for before it ({@code weir --help run} lists
     * every command).
     */
    static String subcommandNamed(String... args) {
        for (int i = 0; i < args.length; i++) {
            String word = args[i];
            if (word.equals("--log-format")) {
                i++; // its value
            } else if (word.startsWith("-") && !word.startsWith("--log-format=")) {
                return null;
            } else if (!word.startsWith("-")) {
                return SUBCOMMANDS.containsKey(word) ? word : null;
            }
        }
        return null;
    }

    /**
     * Sets the system property {@code WEIR_LOG_FORMAT} that the log set-up reads from
     * {@code --log-format} before anything logs (logback configures itself on the first logger);
     * an unknown format (which would silently lose every log line) is the returned problem.
     */
    static String chooseLogFormat(String[] args, String fromEnv) {
        String format = fromEnv == null || fromEnv.isBlank() ? null : fromEnv.strip();
        String from = "WEIR_LOG_FORMAT";
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--log-format") && i + 1 < args.length) {
                format = args[i + 1];
                from = "--log-format";
            } else if (args[i].startsWith("--log-format=")) {
                format = args[i].substring("--log-format=".length());
                from = "--log-format";
            }
        }
        if (format == null) {
            return null;
        }
        if (!LOG_FORMATS.contains(format)) {
            return from + " must be text or json, was " + format;
        }
        System.setProperty("WEIR_LOG_FORMAT", format);
        return null;
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
