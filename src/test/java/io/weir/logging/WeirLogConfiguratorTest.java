package io.weir.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator.ExecutionStatus;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.ConsoleAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

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
        if (System.getenv("WEIR_LOG_FORMAT") != null || System.getenv("WEIR_LOG_LEVEL") != null) {
            return; // the environment chooses here; the first test covers the choice
        }
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
    void aConfigurationFileOfOnesOwnIsLeftToLogback() {
        System.setProperty("logback.configurationFile", "/etc/weir/logback.xml");

        LoggerContext context = configured(ExecutionStatus.INVOKE_NEXT_IF_ANY);

        assertNull(context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("CONSOLE"));
        assertNull(context.getLogger("io.weir").getLevel());
    }
}
