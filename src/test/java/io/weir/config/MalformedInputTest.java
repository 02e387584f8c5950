package io.weir.config;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Damaged files must end in a ConfigException listing positioned errors, never another one. */
class MalformedInputTest {

    private static final String ALPHABET = " \n\t:-{}[],#&*!|>'\"%@`?${}0123456789abcxyz.~";

    @Test
    void randomlyDamagedExamplesNeverEscapeAsOtherExceptions() throws IOException {
        String example = Files.readString(Path.of("config/examples/running-totals.yaml"));
        Random random = new Random(7L);
        for (int i = 0; i < 250; i++) {
            String damaged = damage(example, random, 1 + random.nextInt(4));
            try {
                new ConfigLoader(() -> "host").load(Configs.FILE, damaged, Map.of(), List.of());
            } catch (ConfigException e) {
                assertFalse(e.getMessage().contains("internal error"), () -> e.getMessage() + "\nfor:\n" + damaged);
                assertFalse(e.errors().isEmpty());
            } catch (RuntimeException e) {
                fail("for:\n" + damaged, e);
            }
        }
    }

    @Test
    void randomOverridesNeverEscapeAsOtherExceptions() {
        Random random = new Random(11L);
        List<String> keys = List.of(
                "application",
                "pipeline.1.aggregate.sum",
                "pipeline.0",
                "pipeline.5.x",
                "processing.state",
                "kafka.properties.a.b",
                "http.port",
                "pipeline",
                "",
                "processing.restart.strategy",
                ".",
                "a..b");
        for (int i = 0; i < 200; i++) {
            String override = keys.get(random.nextInt(keys.size())) + "="
                    + damage("{a: [1, b], c: d}", random, random.nextInt(3));
            try {
                new ConfigLoader(() -> "host").load(Configs.FILE, Configs.MINIMAL, Map.of(), List.of(override));
            } catch (ConfigException e) {
                assertFalse(e.getMessage().contains("internal error"), () -> e.getMessage());
            } catch (RuntimeException e) {
                fail("for --set " + override, e);
            }
        }
    }

    @Test
    void positionsStayInsideTheFile() throws IOException {
        String example = Files.readString(Path.of("config/examples/running-totals.yaml"));
        long lines = example.lines().count() + 1;
        Random random = new Random(3L);
        for (int i = 0; i < 100; i++) {
            String damaged = damage(example, random, 2);
            try {
                new ConfigLoader(() -> "host").load(Configs.FILE, damaged, Map.of(), List.of());
            } catch (ConfigException e) {
                e.errors().stream()
                        .filter(ConfigError::hasPosition)
                        .forEach(error -> assertTrue(error.line() <= lines && error.column() >= 1, error::toString));
            }
        }
    }

    private static String damage(String text, Random random, int edits) {
        StringBuilder damaged = new StringBuilder(text);
        for (int edit = 0; edit < edits; edit++) {
            int at = damaged.length() == 0 ? 0 : random.nextInt(damaged.length());
            char c = ALPHABET.charAt(random.nextInt(ALPHABET.length()));
            switch (random.nextInt(3)) {
                case 0 -> damaged.insert(at, c);
                case 1 -> {
                    if (damaged.length() > 0) {
                        damaged.deleteCharAt(at);
                    }
                }
                default -> {
                    if (damaged.length() > 0) {
                        damaged.setCharAt(at, c);
                    }
                }
            }
        }
        return damaged.toString();
    }
}
