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
    /** Average loads in percent of all cores, and the CPU time this JVM spent meanwhile. */
    record Load(double machine, double jvm, long jvmCpuNanos) {
        @Override
        public String toString() {
            return String.format("%.0f %% / %.0f %%", machine, jvm);
        }
    }

    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private final DoubleAdder machine = new DoubleAdder();
    private final DoubleAdder jvm = new DoubleAdder();
    private final LongAdder samples = new LongAdder();
    private final Thread thread;
    private final long startCpuNanos;
    private volatile boolean running = true;

    private CpuSampler() {
        startCpuNanos = os.getProcessCpuTime();
        os.getCpuLoad(); // the first reading covers no interval
        os.getProcessCpuLoad();
        thread = new Thread(this::sample, "cpu-sampler");
        thread.setDaemon(true);
    }

    static CpuSampler start() {
        CpuSampler s = new CpuSampler();
        s.thread.start();
        return s;
    }

    Load stop() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join();
        long n = Math.max(1, samples.sum());
        return new Load(100 * machine.sum() / n, 100 * jvm.sum() / n, os.getProcessCpuTime() - startCpuNanos);
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
