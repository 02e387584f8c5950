package io.weir.operators;

import io.weir.api.Processor;
import io.weir.dataflow.Operator;
import io.weir.dataflow.OperatorContext;
import io.weir.dataflow.OperatorOpenException;
import io.weir.dataflow.RecordKey;
import io.weir.element.Header;
import io.weir.element.InputPartition;
import io.weir.state.KeyedState;
import io.weir.state.MemoryStateStore;
import io.weir.state.Timers;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The custom operators of a job: classes from the jars in the plugins directory
 * ({@code processing.plugins}, {@code plugins} by default, relative to the working directory).
 *
 * <p>All jars of the directory share one class loader whose parent is the runtime's, so
 * {@code io.weir.api} (and Jackson) resolve to the runtime's copy: a plugin jar must not bundle them
 * (depend on {@code io.weir:weir-api} with scope {@code provided}); a jar that does is warned about,
 * and its copy is never used. Without the directory, classes come from the runtime's own class path.
 * Libraries a plugin needs go into the directory as jars of their own.
 *
 * <p>Every problem is found at start, by {@link #processorFactory}, which loads the class and makes
 * one instance; it throws {@link PluginException} saying what was wrong: a class not found (with the
 * jars searched), not a {@link Processor}, without a public no-argument constructor, or whose
 * constructor threw.
 */
public final class Plugins implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(Plugins.class);
    private static final String API_CLASS = Processor.class.getName().replace('.', '/') + ".class";

    private final Path dir;
    private final List<Path> jars;
    private final ClassLoader loader;

    private Plugins(Path dir, List<Path> jars, ClassLoader loader) {
        this.dir = dir;
        this.jars = List.copyOf(jars);
        this.loader = loader;
    }

    /**
     * The plugins of {@code dir}: every {@code *.jar} in it (not in subdirectories), or the runtime's
     * class path when it does not exist.
     */
    public static Plugins load(Path dir) {
        Path abs = dir.toAbsolutePath().normalize();
        ClassLoader runtime = Plugins.class.getClassLoader();
        if (!Files.isDirectory(abs)) {
            if (Files.exists(abs)) {
                throw new PluginException("plugins directory " + abs + " is a file, expected a directory of jars");
            }
            LOG.debug("no plugins directory {}: custom operators come from the runtime's class path", abs);
            return new Plugins(abs, List.of(), runtime);
        }
        List<Path> jars;
        try (Stream<Path> files = Files.list(abs)) {
            jars = files.filter(p -> p.getFileName().toString().endsWith(".jar") && Files.isRegularFile(p))
                    .sorted()
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new PluginException("cannot list plugins directory " + abs + ": " + e, e);
        }
        List<URL> urls = new ArrayList<>();
        for (Path jar : jars) {
            warnIfBundlingTheApi(jar);
            try {
                urls.add(jar.toUri().toURL());
            } catch (MalformedURLException e) {
                throw new PluginException("cannot use plugin jar " + jar + ": " + e, e);
            }
        }
        LOG.info("plugins: {} jar(s) in {}: {}", jars.size(), abs, names(jars));
        return new Plugins(abs, jars, new URLClassLoader("weir-plugins", urls.toArray(URL[]::new), runtime));
    }

    private static void warnIfBundlingTheApi(Path jar) {
        try (JarFile file = new JarFile(jar.toFile())) {
            if (file.getEntry(API_CLASS) != null) {
                LOG.warn(
                        "plugin jar {} bundles io.weir.api; the runtime's copy is used instead."
                                + " Depend on io.weir:weir-api with scope provided",
                        jar.getFileName());
            }
        } catch (IOException e) {
            throw new PluginException("plugin jar " + jar + " cannot be read as a jar: " + e, e);
        }
    }

    /** The plugins directory, absolute. */
    public Path directory() {
        return dir;
    }

    /** The jars loaded, in name order; empty when the directory does not exist or holds none. */
    public List<Path> jars() {
        return jars;
    }

    /**
     * Makes the operators of a {@code process} step: each call of the supplier makes a new
     * {@link ProcessOperator} around a new instance of {@code className}. One instance is made and
     * opened here, with the step's settings and state of its own, so that a class that cannot be
     * used, or refuses its settings, fails the start (and {@code weir validate}) instead of every
     * task.
     *
     * @param step the step's name in the configuration ({@code pipeline.2.process}): the messages
     *     name it and it keeps the step's state apart from other steps'
     * @param with the step's {@code with:} mapping (null: none)
     * @throws PluginException saying why the class cannot be used
     */
    public Supplier<Operator> processorFactory(String step, String className, Map<String, ?> with) {
        Constructor<? extends Processor> constructor = constructor(step, className);
        Supplier<Processor> processors = () -> instantiate(step, constructor);
        Supplier<Operator> factory = ProcessOperator.factory(step, processors, with);
        try {
            factory.get().open(new ProbeContext(step));
        } catch (OperatorOpenException e) {
            throw new PluginException(
                    step + ": custom operator " + className + " failed to open: " + e.getCause(), e.getCause());
        }
        return factory;
    }

    /** What the instance opened at the start sees: state and timers of its own, no record yet. */
    private record ProbeContext(String step, KeyedState state) implements OperatorContext {
        ProbeContext(String step) {
            this(step, new KeyedState(new MemoryStateStore(step)));
        }

        @Override
        public Timers timers() {
            return state.timers("0");
        }

        @Override
        public String taskName() {
            return step + "-check-0"; // <stage>-<partition>, as ProcessorContext documents
        }

        @Override
        public long currentProcessingTime() {
            return System.currentTimeMillis();
        }

        @Override
        public long currentWatermark() {
            return Long.MIN_VALUE;
        }

        @Override
        public InputPartition currentInput() {
            return null;
        }

        @Override
        public long currentOffset() {
            return -1;
        }

        @Override
        public RecordKey currentKey() {
            return null;
        }

        @Override
        public void send(String topic, byte[] key, byte[] value, long timestamp, List<Header> headers) {
            throw new IllegalStateException("nothing is sent while a custom operator opens");
        }
    }

    private Constructor<? extends Processor> constructor(String step, String className) {
        Class<?> type;
        try {
            type = Class.forName(className, true, loader);
        } catch (ClassNotFoundException e) {
            throw new PluginException(step + ": class " + className + " not found " + searched(), e);
        } catch (LinkageError e) {
            throw new PluginException(
                    step + ": class " + className + " could not be loaded: " + e
                            + " (a library it needs may be missing: put its jar in " + dir + " too)",
                    e);
        }
        if (!Processor.class.isAssignableFrom(type)) {
            throw new PluginException(step + ": class " + className + " " + origin(type) + " does not implement "
                    + Processor.class.getName() + ", which a process step needs");
        }
        if (type.isInterface() || Modifier.isAbstract(type.getModifiers())) {
            throw new PluginException(step + ": class " + className + " is abstract; a process step needs a concrete "
                    + Processor.class.getSimpleName());
        }
        if (!Modifier.isPublic(type.getModifiers())
                || (type.getEnclosingClass() != null && !Modifier.isStatic(type.getModifiers()))) {
            throw new PluginException(step + ": class " + className
                    + " must be public (and static when nested), so that the runtime can make instances");
        }
        try {
            return type.asSubclass(Processor.class).getConstructor();
        } catch (NoSuchMethodException e) {
            throw new PluginException(
                    step + ": class " + className + " has no public no-argument constructor, which the runtime calls"
                            + " to make one instance per task (settings come through ProcessorContext.settings())",
                    e);
        }
    }

    private static Processor instantiate(String step, Constructor<? extends Processor> constructor) {
        String name = constructor.getDeclaringClass().getName();
        try {
            return constructor.newInstance();
        } catch (InvocationTargetException e) {
            throw new PluginException(step + ": the constructor of " + name + " threw " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new PluginException(step + ": cannot make an instance of " + name + ": " + e, e);
        }
    }

    private String searched() {
        if (jars.isEmpty()) {
            return Files.isDirectory(dir)
                    ? "on the runtime's class path (plugins directory " + dir + " has no jars)"
                    : "on the runtime's class path (there is no plugins directory " + dir + ")";
        }
        return "in the plugin jars " + names(jars) + " of " + dir + " nor on the runtime's class path";
    }

    /** Where a class was loaded from, for messages: "(from x.jar)", or "" when not known. */
    private static String origin(Class<?> type) {
        java.security.CodeSource source = type.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) {
            return "";
        }
        String location = source.getLocation().getPath();
        int slash = location.lastIndexOf('/', location.length() - 2);
        return "(from " + location.substring(slash + 1) + ")";
    }

    private static List<String> names(List<Path> jars) {
        return jars.stream().map(p -> p.getFileName().toString()).collect(Collectors.toList());
    }

    /** Releases the plugin jars; operators made by this instance must not run any more. */
    @Override
    public void close() {
        if (loader instanceof URLClassLoader closable) {
            try {
                closable.close();
            } catch (IOException e) {
                throw new UncheckedIOException("closing the plugins' class loader failed", e);
            }
        }
    }

    /** A custom operator that cannot be used; the message says why. */
    public static final class PluginException extends RuntimeException {
        PluginException(String message) {
            super(message);
        }

        PluginException(String message, Throwable cause) {
            super(message, cause);
        }

        /** The same problem, its message led by where the step's class was named ({@code job.yaml:7:14}). */
        public PluginException at(String where) {
            PluginException located = new PluginException(where + ": " + getMessage(), getCause());
            located.setStackTrace(getStackTrace());
            return located;
        }
    }
}
