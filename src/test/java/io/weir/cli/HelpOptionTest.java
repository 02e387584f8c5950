package io.weir.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class HelpOptionTest {

    @Test
    void everyCommandAnswersHelpAndVersion() {
        CommandLine weir = new CommandLine(new WeirCommand());
        for (String name : weir.getSubcommands().keySet()) {
            if (name.equals("help")) {
                continue;
            }
            StringWriter out = new StringWriter();
            CommandLine cli = new CommandLine(new WeirCommand());
            cli.setOut(new PrintWriter(out));
            cli.setErr(new PrintWriter(new StringWriter()));
            assertEquals(0, cli.execute(name, "--help"), name);
            assertTrue(out.toString().startsWith("Usage: weir " + name), name + ": " + out);

            StringWriter version = new StringWriter();
            cli = new CommandLine(new WeirCommand());
            cli.setOut(new PrintWriter(version));
            assertEquals(0, cli.execute(name, "--version"), name);
            assertTrue(version.toString().startsWith("weir "), name + ": " + version);
        }
    }
}
