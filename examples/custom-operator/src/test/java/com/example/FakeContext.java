package com.example;

import io.weir.api.ListState;
import io.weir.api.MapState;
import io.weir.api.Output;
import io.weir.api.Processor;
import io.weir.api.ProcessorContext;
import io.weir.api.Record;
import io.weir.api.Settings;
import io.weir.api.TimerEvent;
import io.weir.api.Timers;
import io.weir.api.ValueState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Just enough of Weir's runtime to test a {@link Processor} without it: list and value state per
 * key in memory, event-time timers that fire when the test moves the watermark, and the emitted
 * values collected. The record key is set by {@link #process} as the runtime sets it.
 */
final class FakeContext implements ProcessorContext {
    /** A value emitted, with the key and timestamp it went out with. */
    record Emitted(Object key, Object value, long timestamp) {}

    final List<Emitted> emitted = new ArrayList<>();
    private final Processor processor;
    private final Settings settings;
    private final Map<String, Map<Object, Object>> states = new HashMap<>();
    private final TreeMap<Long, List<Object>> eventTimers = new TreeMap<>();
    private Object currentKey;
    private long currentTimestamp;
    private long watermark = Long.MIN_VALUE;

    FakeContext(Processor processor, Map<String, ?> with) throws Exception {
        this.processor = processor;
        this.settings = Settings.of(with);
        processor.open(this);
    }

    /** Processes a record of {@code key} with {@code value} at {@code timestamp}. */
    void process(Object key, Object value, long timestamp) throws Exception {
        currentKey = key;
        currentTimestamp = timestamp;
        processor.process(new FakeRecord(key, value, timestamp), output());
    }

    /** Moves event time to {@code watermark}, firing the timers due, earliest first. */
    void advanceWatermark(long to) throws Exception {
        watermark = to;
        while (!eventTimers.isEmpty() && eventTimers.firstKey() <= to) {
            Map.Entry<Long, List<Object>> due = eventTimers.pollFirstEntry();
            for (Object key : due.getValue()) {
                currentKey = key;
                currentTimestamp = due.getKey();
                processor.onTimer(new FakeTimer(due.getKey(), key), output());
            }
        }
    }

    /** Whether state {@code name} holds anything for {@code key}. */
    boolean hasState(String name, Object key) {
        return states.getOrDefault(name, Map.of()).containsKey(key);
    }

    int pendingTimers() {
        return eventTimers.values().stream().mapToInt(List::size).sum();
    }

    private Output output() {
        return new Output() {
            @Override
            public void emit(Object value) {
                emit(value, currentTimestamp);
            }

            @Override
            public void emit(Object value, long timestamp) {
                emitted.add(new Emitted(currentKey, value, timestamp));
            }
        };
    }

    private Map<Object, Object> state(String name) {
        return states.computeIfAbsent(name, n -> new HashMap<>());
    }

    @Override
    public <T> ValueState<T> valueState(String name, Class<T> type) {
        Map<Object, Object> byKey = state(name);
        return new ValueState<>() {
            @Override
            public T value() {
                return type.cast(byKey.get(currentKey));
            }

            @Override
            public void update(T value) {
                if (value == null) {
                    clear();
                } else {
                    byKey.put(currentKey, value);
                }
            }

            @Override
            public void clear() {
                byKey.remove(currentKey);
            }
        };
    }

    @Override
    public <T> ListState<T> listState(String name, Class<T> type) {
        Map<Object, Object> byKey = state(name);
        return new ListState<>() {
            @Override
            public List<T> get() {
                List<T> out = new ArrayList<>();
                for (Object item : (List<?>) byKey.getOrDefault(currentKey, List.of())) {
                    out.add(type.cast(item));
                }
                return out;
            }

            @Override
            public void add(T value) {
                List<T> items = get();
                items.add(value);
                byKey.put(currentKey, items);
            }

            @Override
            public void update(List<T> values) {
                if (values.isEmpty()) {
                    clear();
                } else {
                    byKey.put(currentKey, new ArrayList<>(values));
                }
            }

            @Override
            public void clear() {
                byKey.remove(currentKey);
            }
        };
    }

    @Override
    public <K, V> MapState<K, V> mapState(String name, Class<K> keyType, Class<V> valueType) {
        throw new UnsupportedOperationException("FraudFlag uses no map state");
    }

    @Override
    public Timers timers() {
        return new Timers() {
            @Override
            public void registerEventTime(long timestamp) {
                List<Object> keys = eventTimers.computeIfAbsent(timestamp, t -> new ArrayList<>());
                if (!keys.contains(currentKey)) {
                    keys.add(currentKey);
                }
            }

            @Override
            public void deleteEventTime(long timestamp) {
                List<Object> keys = eventTimers.get(timestamp);
                if (keys != null) {
                    keys.remove(currentKey);
                }
            }

            @Override
            public void registerProcessingTime(long timestamp) {
                throw new UnsupportedOperationException("FraudFlag uses event time only");
            }

            @Override
            public void deleteProcessingTime(long timestamp) {
                throw new UnsupportedOperationException("FraudFlag uses event time only");
            }
        };
    }

    @Override
    public long currentProcessingTime() {
        return 0;
    }

    @Override
    public long currentWatermark() {
        return watermark;
    }

    @Override
    public Settings settings() {
        return settings;
    }

    @Override
    public String taskName() {
        return "test-0";
    }

    private record FakeRecord(Object key, Object value, long timestamp) implements Record {
        @Override
        public Map<String, String> headers() {
            return Map.of();
        }

        @Override
        public String topic() {
            return "orders";
        }

        @Override
        public int partition() {
            return 0;
        }

        @Override
        public long offset() {
            return 0;
        }
    }

    private record FakeTimer(long timestamp, Object key) implements TimerEvent {
        @Override
        public Domain domain() {
            return Domain.EVENT_TIME;
        }
    }
}
