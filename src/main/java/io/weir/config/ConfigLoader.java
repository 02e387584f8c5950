package io.weir.config;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Loads a job's YAML configuration into a {@link WeirConfig}: reads and parses the file keeping
 * every value's position, applies the {@code --set} overrides, substitutes {@code ${NAME}}
 * variables from the given environment, then binds and validates. Every problem found is
 * reported in one {@link ConfigException}; a malformed file never escapes as another exception.
 */
public final class ConfigLoader {

    private final Supplier<String> hostName;

    public ConfigLoader() {
        this(ConfigLoader::localHostName);
    }

    /** A loader that takes the default instance id from {@code hostName}. */
    ConfigLoader(Supplier<String> hostName) {
        this.hostName = hostName;
    }

    /**
     * Loads {@code file}.
     *
     * @param env the variables for {@code ${NAME}} substitution, usually {@link System#getenv()}
     * @param setOverrides {@code key=value} overrides in the order given; later ones win
     * @throws ConfigException listing every problem found
     */
    public WeirConfig load(Path file, Map<String, String> env, List<String> setOverrides) throws ConfigException {
        String name = file.toString();
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw single(name, "cannot read the configuration: no such file");
        } catch (CharacterCodingException e) {
            throw single(name, "cannot read the configuration: it is not UTF-8 text");
        } catch (IOException e) {
            throw single(name, "cannot read the configuration: " + e);
        }
        return load(name, text, env, setOverrides);
    }

    /** Loads configuration text; {@code fileName} is how errors name it. */
    public WeirConfig load(String fileName, String text, Map<String, String> env, List<String> overrides)
            throws ConfigException {
        List<String> sources = new ArrayList<>(List.of(fileName));
        sources.addAll(Overrides.sources(overrides));
        ErrorList errors = new ErrorList(sources);
        try {
            Optional<YamlNode> parsed = YamlParser.parse(fileName, text, errors);
            errors.throwIfAny();
            if (parsed.isEmpty()) {
                throw single(
                        fileName, "the file is empty; expected a mapping with at least " + "application and pipeline");
            }
            YamlNode tree = new Overrides(fileName, errors).apply(parsed.get(), overrides);
            tree = new EnvSubstitution(env, errors).apply(tree, "");
            if (!(tree instanceof YamlNode.Mapping root)) {
                errors.add(
                        tree.origin(),
                        "the top level must be a mapping of settings (application, "
                                + "kafka, processing, pipeline, ...), was " + tree.describe());
                throw errors.toException();
            }
            Optional<WeirConfig> config = new ConfigBinder(hostName).bind(new Section("", "", root, errors));
            errors.throwIfAny();
            return config.orElseThrow(() -> new IllegalStateException("binding failed without errors"));
        } catch (RuntimeException e) {
            errors.add(
                    Origin.of(fileName), "internal error while loading the configuration, please " + "report it: " + e);
            throw errors.toException();
        }
    }

    private static ConfigException single(String file, String message) {
        return new ConfigException(List.of(Origin.of(file).error(message)));
    }

    private static String localHostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException | SecurityException e) {
            return "weir";
        }
    }
}
