package io.weir.operators;

import io.weir.api.ListState;
import io.weir.api.MapState;
import io.weir.api.Output;
import io.weir.api.Processor;
import io.weir.api.ProcessorContext;
import io.weir.api.Settings;
import io.weir.api.TimerEvent;
import io.weir.api.ValueState;
import io.weir.dataflow.BadRecordException;
import io.weir.dataflow.Collector;
import io.weir.dataflow.Event;
import io.weir.dataflow.Operator;
import io.weir.dataflow.OperatorContext;
import io.weir.dataflow.OperatorOpenException;
import io.weir.state.Timer;
import io.weir.state.TimerDomain;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A {@code process} step: runs a custom {@link Processor} as an operator of the chain. Its state is
 * the task's keyed state (JSON values, names prefixed with the step so that two process steps never
 * share a state), its timers are the operator's own, and the record it sees is a view over the
 * {@link Event} and the task's current input position.
 *
 * <p>What a call of {@code process} or {@code onTimer} emits is passed on to the rest of the chain
 * when the call returns, so a call that throws emits nothing: an exception thrown by the
 * processor's {@code process} (or {@code onTimer}) becomes a {@link BadRecordException} "custom
 * operator com.x.Y failed: ...", the record goes to the dead-letter topic (a timer's failure is
 * logged) and the task goes on; state changes the processor made before it threw stay. Failures of
 * the state store are rethrown as they are once the processor returns, even when the processor
 * caught them: they are not the processor's to decide. An exception from {@code open} is an
 * {@link OperatorOpenException}, which stops the job.
 */
public final class ProcessOperator implements Operator {
    private final String step;
    private final Processor processor;
    private final Settings settings;
    private final String className;
    private OperatorContext context;
    private Collector collector;
    private Event current;
    private long timerTime;
    private RuntimeException passThrough;
    /** Beyond this many records emitted by one call, the buffer is let go afterwards. */
    private static final int KEPT_CAPACITY = 1024;
    /** What the current call emitted, passed on when it returns. */
    private List<Event> emitted = new ArrayList<>();

    /**
     * @param step the step's name in the configuration ({@code pipeline.2.process}); it prefixes the
     *     processor's state names
     * @param with the step's {@code with:} mapping (null: none)
     */
    public ProcessOperator(String step, Processor processor, Map<String, ?> with) {
        this.step = step;
        this.processor = processor;
        this.settings = Settings.of(with);
        this.className = processor.getClass().getName();
    }

    /** A factory making a new operator around a new processor for each task. */
    public static Supplier<Operator> factory(
            String step, Supplier<? extends Processor> processors, Map<String, ?> with) {
        Map<String, Object> copy = with == null ? Map.of() : new LinkedHashMap<>(with);
        return () -> new ProcessOperator(step, processors.get(), copy);
    }

    @Override
    public void open(OperatorContext context) {
        this.context = context;
        try {
            processor.open(new Context());
        } catch (Exception | LinkageError e) { // a class its jar lacks, too
            throw new OperatorOpenException(
                    step + ": custom operator " + className + " failed to open in task " + context.taskName() + ": "
                            + e,
                    e);
        }
    }

    @Override
    public void process(Event event, Collector out) {
        current = event;
        try {
            call(() -> processor.process(new RecordView(event, context), output), out);
        } finally {
            current = null;
        }
    }

    @Override
    public void onTimer(Timer timer, Collector out) {
        timerTime = timer.timestamp();
        call(() -> processor.onTimer(new FiredTimer(timer, context), output), out);
    }

    private interface ProcessorCall { // one call into the processor
        void run() throws Exception;
    }

    /**
     * Runs {@code call}, then passes on what it emitted; a call that throws emits nothing. A store
     * failure the processor caught is rethrown instead, in either case.
     */
    private void call(ProcessorCall call, Collector out) {
        collector = out;
        try {
            call.run();
        } catch (Exception e) {
            release();
            rethrowPassThrough();
            throw failed(e);
        } finally {
            collector = null;
        }
        try {
            rethrowPassThrough();
            for (int i = 0; i < emitted.size(); i++) {
                out.emit(emitted.get(i));
            }
        } finally {
            release();
        }
    }

    /** Empties the buffer; one a call filled with many records is let go rather than kept. */
    private void release() {
        if (emitted.size() > KEPT_CAPACITY) {
            emitted = new ArrayList<>();
        } else {
            emitted.clear();
        }
    }

    private BadRecordException failed(Exception e) {
        return new BadRecordException("custom operator " + className + " failed: " + e, e);
    }

    private void rethrowPassThrough() {
        RuntimeException e = passThrough;
        if (e != null) {
            passThrough = null;
            throw e;
        }
    }

    /**
     * Runs a state or timer call; a failure of the store is remembered so that it is rethrown after
     * the processor returns. An {@link IllegalArgumentException} (a value the state cannot hold or
     * read) is the processor's own failure.
     */
    private <T> T store(Supplier<T> action) {
        try {
            return action.get();
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (RuntimeException e) {
            if (passThrough == null) {
                passThrough = e; // the first one
            }
            throw e;
        }
    }

    private void store(Runnable action) {
        store(() -> {
            action.run();
            return null;
        });
    }

    private final Output output = new Output() {
        @Override
        public void emit(Object value) {
            add(value, current != null ? current.timestamp() : timerTime);
        }

        @Override
        public void emit(Object value, long timestamp) {
            if (timestamp < 0) {
                throw new IllegalArgumentException("cannot emit a record at timestamp " + timestamp
                        + ": a timestamp is milliseconds since 1970 and no Kafka record carries one before it");
            }
            add(value, timestamp);
        }

        /** Holds the record until the call returns; with the record's own time, as it came. */
        private void add(Object value, long timestamp) {
            if (collector == null) {
                throw new IllegalStateException(
                        "emit was called outside process and onTimer: an Output is valid only during the call it was passed to");
            }
            Object model = JavaValues.toModel(value);
            emitted.add(
                    current != null
                            ? new Event(current.key(), model, timestamp, current.headers())
                            : new Event(context.currentKey(), model, timestamp, List.of()));
        }
    };

    /** The processor's view of the task: state under the step's names, the operator's timers. */
    private final class Context implements ProcessorContext {
        private final Map<String, String> kinds = new HashMap<>();
        private final io.weir.api.Timers timers = new io.weir.api.Timers() {
            @Override
            public void registerEventTime(long timestamp) {
                store(() -> context.timers().registerEventTime(timestamp));
            }

            @Override
            public void registerProcessingTime(long timestamp) {
                store(() -> context.timers().registerProcessingTime(timestamp));
            }

            @Override
            public void deleteEventTime(long timestamp) {
                store(() -> context.timers().deleteEventTime(timestamp));
            }

            @Override
            public void deleteProcessingTime(long timestamp) {
                store(() -> context.timers().deleteProcessingTime(timestamp));
            }
        };

        /** The store's name of state {@code name}, refusing a name reused for another kind or type. */
        private String claim(String name, String kind, Class<?>... types) {
            if (name == null || name.isEmpty()) {
                throw new IllegalArgumentException("a state name must not be empty");
            }
            StringBuilder what = new StringBuilder(kind);
            for (Class<?> type : types) {
                if (type.isPrimitive()) {
                    throw new IllegalArgumentException("state '" + name + "' has the primitive type " + type
                            + "; use its wrapper class, such as Long.class for long");
                }
                what.append(' ').append(type.getName());
            }
            String before = kinds.putIfAbsent(name, what.toString());
            if (before != null && !before.equals(what.toString())) {
                throw new IllegalArgumentException("state '" + name + "' is already a " + before + ", cannot also be a "
                        + what + ": give each state its own name");
            }
            String full = step + "/" + name;
            if (full.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 255) {
                throw new IllegalArgumentException("state name '" + name + "' is too long: with the step name " + step
                        + " it must stay within 255 bytes");
            }
            return full;
        }

        @Override
        public <T> ValueState<T> valueState(String name, Class<T> type) {
            io.weir.state.ValueState<T> state =
                    context.state().valueState(claim(name, "value state of", type), new JsonStateSerde<>(type, name));
            return new ValueState<>() {
                @Override
                public T value() {
                    return store(state::value);
                }

                @Override
                public void update(T value) {
                    store(() -> state.update(value));
                }

                @Override
                public void clear() {
                    store(state::clear);
                }
            };
        }

        @Override
        public <K, V> MapState<K, V> mapState(String name, Class<K> keyType, Class<V> valueType) {
            io.weir.state.MapState<K, V> state = context.state()
                    .mapState(
                            claim(name, "map state of", keyType, valueType),
                            new JsonStateSerde<>(keyType, name + " (key)"),
                            new JsonStateSerde<>(valueType, name));
            return new MapState<>() {
                @Override
                public V get(K key) {
                    return store(() -> state.get(key));
                }

                @Override
                public void put(K key, V value) {
                    store(() -> state.put(key, value));
                }

                @Override
                public void remove(K key) {
                    store(() -> state.remove(key));
                }

                @Override
                public boolean contains(K key) {
                    return store(() -> state.contains(key));
                }

                @Override
                public Map<K, V> entries() {
                    return store(() -> {
                        Map<K, V> out = new LinkedHashMap<>();
                        for (Map.Entry<K, V> e : state.entries()) {
                            out.put(e.getKey(), e.getValue());
                        }
                        return out;
                    });
                }

                @Override
                public void clear() {
                    store(state::clear);
                }
            };
        }

        @Override
        public <T> ListState<T> listState(String name, Class<T> type) {
            io.weir.state.ListState<T> state =
                    context.state().listState(claim(name, "list state of", type), new JsonStateSerde<>(type, name));
            return new ListState<>() {
                @Override
                public List<T> get() {
                    return store(state::get);
                }

                @Override
                public void add(T value) {
                    store(() -> state.add(value));
                }

                @Override
                public void update(List<T> values) {
                    store(() -> state.update(values));
                }

                @Override
                public void clear() {
                    store(state::clear);
                }
            };
        }

        @Override
        public io.weir.api.Timers timers() {
            return timers;
        }

        @Override
        public long currentProcessingTime() {
            return context.currentProcessingTime();
        }

        @Override
        public long currentWatermark() {
            return context.currentWatermark();
        }

        @Override
        public Settings settings() {
            return settings;
        }

        @Override
        public String taskName() {
            return context.taskName();
        }
    }

    /** A fired timer as the processor sees it; the key is decoded when asked for. */
    private record FiredTimer(Timer timer, OperatorContext context) implements TimerEvent {
        @Override
        public long timestamp() {
            return timer.timestamp();
        }

        @Override
        public Domain domain() {
            return timer.domain() == TimerDomain.EVENT_TIME ? Domain.EVENT_TIME : Domain.PROCESSING_TIME;
        }

        @Override
        public Object key() {
            return JavaValues.toJava(context.currentKey().value());
        }
    }
}
