package io.weir.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LogFormatOptionTest {
    private final String before = System.getProperty("WEIR_LOG_FORMAT");

    @AfterEach
    void restore() {
        if (before == null) {
            System.clearProperty("WEIR_LOG_FORMAT");
        } else {
            System.setProperty("WEIR_LOG_FORMAT", before);
        }
    }

    @Test
    void theOptionWinsOverTheEnvironmentAndReachesLogbackAsASystemProperty() {
        assertNull(WeirCommand.chooseLogFormat(new String[] {"run", "--log-format", "json", "-c", "x"}, "text"));
        assertEquals("json", System.getProperty("WEIR_LOG_FORMAT"));
        assertNull(WeirCommand.chooseLogFormat(new String[] {"run", "--log-format=text"}, "json"));
        assertEquals("text", System.getProperty("WEIR_LOG_FORMAT"));
        assertNull(WeirCommand.chooseLogFormat(new String[] {"run"}, "json"));
        assertEquals("json", System.getProperty("WEIR_LOG_FORMAT"));
    }

    @Test
    void anUnknownFormatIsRefusedBeforeAnythingLogs() {
        assertEquals(
                "--log-format must be text or json, was xml",
                WeirCommand.chooseLogFormat(new String[] {"run", "--log-format", "xml"}, null));
        assertEquals(
                "WEIR_LOG_FORMAT must be text or json, was yaml",
                WeirCommand.chooseLogFormat(new String[] {"run"}, "yaml"));
    }

    @Test
    void everySubcommandAcceptsTheOption() {
        picocli.CommandLine cli = WeirCommand.commandLine();
        cli.setErr(new java.io.PrintWriter(new java.io.StringWriter()));
        cli.setOut(new java.io.PrintWriter(new java.io.StringWriter()));
        assertEquals(
                0, cli.execute("validate", "--log-format", "json", "--config", "config/examples/running-totals.yaml"));
        assertEquals(
                2, cli.execute("validate", "--log-format", "xml", "--config", "config/examples/running-totals.yaml"));
    }
}
