package io.weir.config;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Loads configuration text in tests, with a fixed host name and environment. */
final class Configs {

    static final String FILE = "config/job.yaml";

    static final String MINIMAL =
            """
      application: app
      pipeline:
        - source: { topic: in }
        - aggregate: { count: n }
        - sink: { topic: out }
      """;

    private Configs() {}

    static WeirConfig load(String yaml, String... overrides) {
        return load(yaml, Map.of(), overrides);
    }

    static WeirConfig load(String yaml, Map<String, String> env, String... overrides) {
        try {
            return new ConfigLoader(() -> "test-host").load(FILE, yaml, env, List.of(overrides));
        } catch (ConfigException e) {
            return fail("expected the configuration to load, got:\n" + e.getMessage());
        }
    }

    static List<ConfigError> errors(String yaml, String... overrides) {
        return errors(yaml, Map.of(), overrides);
    }

    static List<ConfigError> errors(String yaml, Map<String, String> env, String... overrides) {
        return assertThrows(ConfigException.class, () -> new ConfigLoader(() -> "test-host")
                        .load(FILE, yaml, env, List.of(overrides)))
                .errors();
    }

    /** The only error of a load, as {@code file:line:column: message}. */
    static String error(String yaml, String... overrides) {
        List<ConfigError> errors = errors(yaml, overrides);
        if (errors.size() != 1) {
            fail("expected one error, got " + errors.size() + ":\n"
                    + errors.stream().map(ConfigError::toString).collect(Collectors.joining("\n")));
        }
        return errors.get(0).toString();
    }

    /** {@link #MINIMAL} with {@code extra} lines appended at the top level. */
    static String minimalWith(String extra) {
        return MINIMAL + extra;
    }
}
