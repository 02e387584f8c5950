package io.weir.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class HelpOptionTest {

    @Test
    void everyCommandAnswersHelpAndVersion() {
        Set<String> names = WeirCommand.commandLine().getSubcommands().keySet();
        assertEquals(11, names.size(), names.toString());
        for (String name : names) {
            if (name.equals("help")) {
                continue;
            }
            // Built as main builds it for this command line: with that subcommand alone.
            StringWriter out = new StringWriter();
            CommandLine cli = WeirCommand.commandLine(name, "--help");
            cli.setOut(new PrintWriter(out));
            cli.setErr(new PrintWriter(new StringWriter()));
            assertEquals(0, cli.execute(name, "--help"), name);
            assertTrue(out.toString().startsWith("Usage: weir " + name), name + ": " + out);

            StringWriter version = new StringWriter();
            cli = WeirCommand.commandLine(name, "--version");
            cli.setOut(new PrintWriter(version));
            assertEquals(0, cli.execute(name, "--version"), name);
            assertTrue(version.toString().startsWith("weir "), name + ": " + version);
        }
    }

    @Test
    void aCommandLineNamingASubcommandBuildsThatOneAloneAndAnyOtherBuildsAll() {
        assertEquals(
                Set.of("run"),
                WeirCommand.commandLine("run", "--config", "job.yaml")
                        .getSubcommands()
                        .keySet());
        assertEquals(
                Set.of("dev"),
                WeirCommand.commandLine("--log-format", "json", "dev")
                        .getSubcommands()
                        .keySet());
        assertEquals(11, WeirCommand.commandLine("help", "run").getSubcommands().size());
        assertEquals(
                11, WeirCommand.commandLine("--help", "run").getSubcommands().size());
        assertEquals(
                11, WeirCommand.commandLine("-h", "validate").getSubcommands().size());
        assertEquals(11, WeirCommand.commandLine("--version").getSubcommands().size());
        assertEquals(11, WeirCommand.commandLine("nope").getSubcommands().size());
    }

    @Test
    void helpAndAnUnknownCommandStillListEverySubcommand() {
        StringWriter out = new StringWriter();
        CommandLine cli = WeirCommand.commandLine("help");
        cli.setOut(new PrintWriter(out));
        assertEquals(0, cli.execute("help"));
        for (String name : WeirCommand.commandLine().getSubcommands().keySet()) {
            assertTrue(out.toString().contains("  " + name), name + " missing from: " + out);
        }

        StringWriter err = new StringWriter();
        cli = WeirCommand.commandLine("runn");
        cli.setErr(new PrintWriter(err));
        assertEquals(2, cli.execute("runn"));
        assertTrue(err.toString().contains("Did you mean: weir run"), err.toString());
    }
}
