package io.weir.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator.ExecutionStatus;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.status.Status;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@SuppressWarnings("unchecked")
class WeirLogConfiguratorTest {
    private static final String[] PROPERTIES = {"WEIR_LOG_FORMAT", "WEIR_LOG_LEVEL", "logback.configurationFile"};
    private final Map<String, String> before = new HashMap<>();

    WeirLogConfiguratorTest() {
        for (String p : PROPERTIES) {
            before.put(p, System.getProperty(p));
        }
    }

    @AfterEach
    void restore() {
        before.forEach((p, v) -> {
            if (v == null) {
                System.clearProperty(p);
            } else {
                System.setProperty(p, v);
            }
        });
    }

    private static LoggerContext configured(ExecutionStatus expected) {
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(new LogbackMDCAdapter());
        WeirLogConfigurator configurator = new WeirLogConfigurator();
        configurator.setContext(context);
        assertEquals(expected, configurator.configure(context));
        return context;
    }

    @Test
    void itSetsUpTheConsoleTheFormatAndTheLevels() throws Exception {
        System.clearProperty("logback.configurationFile");
        System.setProperty("WEIR_LOG_FORMAT", "json");
        System.setProperty("WEIR_LOG_LEVEL", "DEBUG");

        LoggerContext context = configured(ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);

        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        assertEquals(Level.INFO, root.getLevel());
        assertEquals(Level.DEBUG, context.getLogger("io.weir.app.Instance").getEffectiveLevel());
        assertEquals(
                Level.WARN,
                context.getLogger("org.apache.kafka.clients.consumer.KafkaConsumer")
                        .getEffectiveLevel());
        assertEquals(Level.WARN, context.getLogger("kafka.server.KafkaApis").getEffectiveLevel());
        assertEquals(
                Level.ERROR,
                context.getLogger("org.apache.kafka.clients.NetworkClient").getEffectiveLevel());
        assertEquals(Level.INFO, context.getLogger("com.example.Operator").getEffectiveLevel());

        @SuppressWarnings("unchecked")
        ConsoleAppender<ILoggingEvent> console = (ConsoleAppender<ILoggingEvent>) root.getAppender("CONSOLE");
        assertTrue(console.isStarted());
        Logger logger = context.getLogger("io.weir.test");
        LoggingEvent event =
                new LoggingEvent("x", logger, Level.INFO, "config password=\"secret-marker-1\" refused", null, null);
        String line = new String(console.getEncoder().encode(event), StandardCharsets.UTF_8);
        JsonNode json = new ObjectMapper().readTree(line);
        assertEquals("INFO", json.get("level").asText());
        assertFalse(line.contains("secret-marker-1"), line);
    }

    @Test
    void textIsTheDefaultFormatAndINFOTheDefaultLevel() {
        System.clearProperty("logback.configurationFile");
        System.clearProperty("WEIR_LOG_FORMAT");
        System.clearProperty("WEIR_LOG_LEVEL");
        assumeTrue(
                System.getenv("WEIR_LOG_FORMAT") == null && System.getenv("WEIR_LOG_LEVEL") == null,
                "the environment chooses the format or level here; the first test covers the choice");
        LoggerContext context = configured(ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);

        assertEquals(Level.INFO, context.getLogger("io.weir.app.Instance").getEffectiveLevel());
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        @SuppressWarnings("unchecked")
        ConsoleAppender<ILoggingEvent> console = (ConsoleAppender<ILoggingEvent>) root.getAppender("CONSOLE");
        LoggingEvent event = new LoggingEvent("x", root, Level.WARN, "hello", null, null);
        String line = new String(console.getEncoder().encode(event), StandardCharsets.UTF_8);
        assertTrue(line.matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} WARN  \\[.*\\] ROOT - hello\\R"), line);
    }

    @Test
    void aConfigurationFileOfOnesOwnIsLeftToLogback(@TempDir Path dir) throws Exception {
        Path own = Files.writeString(dir.resolve("logback.xml"), "<configuration/>");
        System.setProperty("logback.configurationFile", own.toString());

        LoggerContext context = configured(ExecutionStatus.INVOKE_NEXT_IF_ANY);

        assertNull(context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("CONSOLE"));
        assertNull(context.getLogger("io.weir").getLevel());
    }

    @Test
    void aConfigurationFileThatDoesNotExistIsWarnedAboutAndWeirsLoggingIsUsed(@TempDir Path dir) {
        // Left to logback, a missing file meant everything at DEBUG, in its own format, unmasked.
        String missing = dir.resolve("not-mounted/logback.xml").toString();
        System.setProperty("logback.configurationFile", missing);

        LoggerContext context = configured(ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);

        assertTrue(context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("CONSOLE") != null);
        assertEquals(
                Level.WARN,
                context.getLogger("org.apache.kafka.clients.consumer.KafkaConsumer")
                        .getEffectiveLevel());
        assertTrue(
                context.getStatusManager().getCopyOfStatusList().stream()
                        .anyMatch(st ->
                                st.getLevel() == Status.WARN && st.getMessage().contains(missing)),
                "a warning names the missing file");
    }

    @Test
    void logbackFindsItAsAService() {
        // A mistyped services file would leave logback's own fallback: DEBUG, no masking, no JSON.
        LoggerContext live = (LoggerContext) org.slf4j.LoggerFactory.getILoggerFactory();
        ConsoleAppender<ILoggingEvent> console = (ConsoleAppender<ILoggingEvent>)
                live.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("CONSOLE");
        assertTrue(console != null && console.getEncoder() instanceof WeirEncoder, String.valueOf(console));
        assertEquals(Level.WARN, live.getLogger("org.apache.kafka").getLevel());
    }
}
