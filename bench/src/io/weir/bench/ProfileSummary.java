package io.weir.bench;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Summarises a JFR recording of a bench run: CPU samples per thread group, the methods that
 * execute the most (self), the Weir and client methods on the most stacks (total), and bytes
 * allocated per thread group.
 *
 * <pre>java -cp target/bench-classes io.weir.bench.ProfileSummary target/bench-profile/bench-eo.jfr [records]</pre>
 */
public final class ProfileSummary {
    private ProfileSummary() {}

    public static void main(String[] args) throws Exception {
        long records = args.length > 1 ? Long.parseLong(args[1]) : 0;
        Map<String, Integer> byGroup = new HashMap<>();
        Map<String, Integer> self = new HashMap<>();
        Map<String, Integer> total = new HashMap<>();
        Map<String, Long> allocated = new HashMap<>();
        Map<String, Long> allocatedBy = new HashMap<>();
        int samples = 0;
        // Exact bytes per thread: the first and last reading of each thread's allocation counter.
        Map<Long, long[]> threadBytes = new HashMap<>();
        Map<Long, String> threadNames = new HashMap<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(Path.of(args[0]))) {
            String type = e.getEventType().getName();
            if (type.equals("jdk.ThreadAllocationStatistics")) {
                long id = e.getThread("thread") == null ? -1 : e.getThread("thread").getJavaThreadId();
                threadNames.put(id, e.getThread("thread") == null ? "?" : e.getThread("thread").getJavaName());
                long bytes = e.getLong("allocated");
                threadBytes.merge(id, new long[] {bytes, bytes}, (a, b) -> new long[] {Math.min(a[0], b[0]), Math.max(a[1], b[1])});
                continue;
            }
            if (type.equals("jdk.ObjectAllocationSample")) {
                long weight = e.getLong("weight");
                allocated.merge(group(e.getThread("eventThread").getJavaName()), weight, Long::sum);
                RecordedStackTrace st = e.getStackTrace();
                if (st != null && !st.getFrames().isEmpty()) {
                    allocatedBy.merge(e.getClass("objectClass").getName() + " at " + frame(firstWeir(st.getFrames())), weight, Long::sum);
                }
                continue;
            }
            if (!type.equals("jdk.ExecutionSample")) {
                continue;
            }
            samples++;
            byGroup.merge(group(e.getThread("sampledThread").getJavaName()), 1, Integer::sum);
            RecordedStackTrace st = e.getStackTrace();
            if (st == null || st.getFrames().isEmpty()) {
                continue;
            }
            self.merge(frame(st.getFrames().get(0)), 1, Integer::sum);
            Set<String> seen = new HashSet<>();
            for (RecordedFrame f : st.getFrames()) {
                String m = frame(f);
                if (seen.add(m)) {
                    total.merge(m, 1, Integer::sum);
                }
            }
        }
        System.out.printf("%,d CPU samples%n%nby thread:%n", samples);
        print(byGroup, samples, 12);
        System.out.printf("%nself (top of stack):%n");
        print(self, samples, 25);
        System.out.printf("%ntotal (on the stack):%n");
        print(total, samples, 40);
        if (!threadBytes.isEmpty() && records > 0) {
            Map<String, Long> byThread = new HashMap<>();
            threadBytes.forEach((id, b) -> byThread.merge(group(threadNames.get(id)), b[1] - b[0], Long::sum));
            long sum = byThread.values().stream().mapToLong(Long::longValue).sum();
            System.out.printf("%nallocated (thread counters, exact): %,d bytes per record%n", sum / records);
            byThread.entrySet().stream()
                    .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                    .limit(8)
                    .forEach(x -> System.out.printf("  %,8d bytes per record  %s%n", x.getValue() / records, x.getKey()));
        }
        if (!allocated.isEmpty()) {
            long sum = allocated.values().stream().mapToLong(Long::longValue).sum();
            System.out.printf("%nallocated: %,d MB%s%n", sum >> 20, records > 0 ? String.format(" = %,d bytes per record", sum / records) : "");
            allocated.entrySet().stream()
                    .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                    .limit(10)
                    .forEach(x -> System.out.printf("  %6.1f %%  %s%n", 100.0 * x.getValue() / sum, x.getKey()));
            System.out.printf("%nallocated by (class at first Weir frame):%n");
            allocatedBy.entrySet().stream()
                    .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                    .limit(25)
                    .forEach(x -> System.out.printf("  %6.1f %%  %s%n", 100.0 * x.getValue() / sum, x.getKey()));
        }
    }

    private static RecordedFrame firstWeir(List<RecordedFrame> frames) {
        for (RecordedFrame f : frames) {
            if (f.getMethod().getType().getName().startsWith("io.weir")) {
                return f;
            }
        }
        return frames.get(0);
    }

    private static void print(Map<String, Integer> counts, int samples, int limit) {
        counts.entrySet().stream()
                .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                .limit(limit)
                .forEach(x -> System.out.printf("  %6.1f %%  %s%n", 100.0 * x.getValue() / samples, x.getKey()));
    }

    private static String frame(RecordedFrame f) {
        String type = f.getMethod().getType().getName();
        return type.substring(type.lastIndexOf('.') + 1) + "." + f.getMethod().getName();
    }

    /** Thread names without their numbers: "weir-worker-1" → "weir-worker". */
    private static String group(String thread) {
        if (thread == null) {
            return "?";
        }
        return thread.replaceAll("[-_ ]?[0-9]+", "").replaceAll("\\(.*\\)", "");
    }
}
