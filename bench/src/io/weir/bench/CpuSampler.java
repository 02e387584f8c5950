package io.weir.bench;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * Samples the machine's and this JVM's CPU load twice a second during a benchmark run, so that a
 * figure says whether the run had the cores to itself (another build on the machine shows as
 * machine load well above this JVM's) and whether it was CPU-bound.
 *
 * <p>Threading: one daemon sampling thread writes the sums; {@link #stop} reads them after joining it.
 */
final class CpuSampler {
    /**
     * Average loads in percent of all cores, the CPU time this JVM spent meanwhile, and the time its
     * JIT compilers spent compiling (a warm run compiles little; much of it means the figures are
     * of code still being compiled, on cores the run needs).
     */
    record Load(double machine, double jvm, long jvmCpuNanos, long brokerCpuNanos, long jitMillis) {
        @Override
        public String toString() {
            return String.format("%.0f %% / %.0f %%", machine, jvm);
        }
    }

    private static final java.lang.management.CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();

    /**
     * The JIT compilers' time so far in ms, summed over their threads (so it can outrun the clock);
     * 0 without a JIT (-Xint) or where the JVM does not keep it.
     */
    static long jitMillis() {
        return JIT == null || !JIT.isCompilationTimeMonitoringSupported() ? 0 : JIT.getTotalCompilationTime();
    }

    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private final DoubleAdder machine = new DoubleAdder();
    private final DoubleAdder jvm = new DoubleAdder();
    private final LongAdder samples = new LongAdder();
    private final Thread thread;
    private final long startCpuNanos;
    private final long startJitMillis = jitMillis();
    /** The broker's process when it runs in a JVM of its own, else null. */
    private final ProcessHandle broker;

    private final long brokerStartCpuNanos;
    private volatile boolean running = true;

    private CpuSampler(ProcessHandle broker) {
        this.broker = broker;
        this.brokerStartCpuNanos = cpuNanos(broker);
        startCpuNanos = os.getProcessCpuTime();
        os.getCpuLoad(); // the first reading covers no interval
        os.getProcessCpuLoad();
        thread = new Thread(this::sample, "cpu-sampler");
        thread.setDaemon(true);
    }

    static CpuSampler start() {
        return start(null);
    }

    /** Also counts the CPU time of {@code broker} (null: none), a process of its own. */
    static CpuSampler start(ProcessHandle broker) {
        CpuSampler s = new CpuSampler(broker);
        s.thread.start();
        return s;
    }

    Load stop() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join();
        long n = Math.max(1, samples.sum());
        return new Load(
                100 * machine.sum() / n,
                100 * jvm.sum() / n,
                os.getProcessCpuTime() - startCpuNanos,
                broker == null ? 0 : cpuNanos(broker) - brokerStartCpuNanos,
                jitMillis() - startJitMillis);
    }

    /** User + system CPU time of a process from /proc/<pid>/stat (Linux; clock ticks of 10 ms). */
    private static long cpuNanos(ProcessHandle process) {
        if (process == null) {
            return 0;
        }
        try {
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + process.pid() + "/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // After the command: state(0) … utime(11) stime(12), in clock ticks.
            return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10_000_000L;
        } catch (java.io.IOException e) {
            return 0;
        }
    }

    private void sample() {
        while (running) {
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                return;
            }
            double m = os.getCpuLoad();
            double j = os.getProcessCpuLoad();
            if (m >= 0 && j >= 0) {
                machine.add(m);
                jvm.add(j);
                samples.increment();
            }
        }
    }
}
