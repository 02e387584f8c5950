package io.weir.ops;

import io.weir.app.Instance;
import java.io.IOException;
import java.net.BindException;
import java.util.function.LongSupplier;

/**
 * Metrics, checkpoint history, readiness and (optionally) the HTTP endpoint of one instance, as
 * {@code weir run} and {@code weir dev} use them. Created before the instance starts, since it
 * registers as the instance's listener.
 */
public final class Ops implements AutoCloseable {
    /** How many checkpoints {@code /checkpoints} shows. */
    public static final int HISTORY = 20;

    private final Instance instance;
    private final WeirMetrics metrics;
    private final CheckpointHistory history;
    private final Readiness readiness;
    private OpsServer server;

    public Ops(Instance instance) {
        this(instance, System::currentTimeMillis);
    }

    Ops(Instance instance, LongSupplier clock) {
        this.instance = instance;
        metrics = new WeirMetrics(instance, clock);
        history = new CheckpointHistory(HISTORY, clock);
        readiness = new Readiness(instance, history, clock);
        instance.listen(metrics);
        instance.listen(history);
    }

    /**
     * Serves HTTP on {@code port} (0: any free port); returns the port. A port in use is a start-up
     * error naming the setting.
     */
    public int serve(int port) throws IOException {
        try {
            server = new OpsServer(port, metrics, () -> !instance.stopped(), readiness, history);
        } catch (BindException e) {
            throw new IOException("cannot serve HTTP on port " + port + " (http.port): " + e.getMessage(), e);
        }
        return server.port();
    }

    public WeirMetrics metrics() {
        return metrics;
    }

    public CheckpointHistory history() {
        return history;
    }

    public Readiness readiness() {
        return readiness;
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
        metrics.close();
    }
}
