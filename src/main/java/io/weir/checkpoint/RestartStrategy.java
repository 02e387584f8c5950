package io.weir.checkpoint;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.function.DoubleSupplier;

/**
 * Decides, after a failure, how long to wait before failing over, or that it is time to give up
 * (the process then exits non-zero and its supervisor restarts it). A pure function of the failure
 * times it was told about; randomness for jitter is injected.
 *
 * <p>Threading: the source loop only.
 */
public final class RestartStrategy {
    /** The kinds a user can configure. */
    public enum Kind {
        FIXED_DELAY,
        EXPONENTIAL_BACKOFF,
        FAILURE_RATE,
        NONE
    }

    /**
     * @param attempts fixed-delay and exponential-backoff: failures tolerated in a row before giving
     *     up (0 = unlimited); a completed checkpoint resets the count
     * @param maxFailures failure-rate: failures tolerated within {@code failureWindow}
     */
    public record Settings(
            Kind kind,
            Duration delay,
            Duration initialBackoff,
            Duration maxBackoff,
            double multiplier,
            double jitter,
            int attempts,
            int maxFailures,
            Duration failureWindow) {
        public Settings {
            if (jitter < 0 || jitter > 1) {
                throw new IllegalArgumentException("restart jitter must be within 0..1, was " + jitter);
            }
            if (multiplier < 1) {
                throw new IllegalArgumentException("restart multiplier must be at least 1, was " + multiplier);
            }
        }

        public static Settings exponential(Duration initial, Duration max) {
            return new Settings(Kind.EXPONENTIAL_BACKOFF, initial, initial, max, 2.0, 0.2, 0, 0, Duration.ZERO);
        }
    }

    private final Settings settings;
    private final DoubleSupplier random;
    private final Deque<Long> recentFailures = new ArrayDeque<>();
    private int inARow;

    public RestartStrategy(Settings settings, DoubleSupplier random) {
        this.settings = settings;
        this.random = random;
    }

    /** A failure happened at {@code now}: the delay before restarting, or empty to give up. */
    public Optional<Duration> onFailure(long nowMillis) {
        inARow++;
        switch (settings.kind()) {
            case NONE:
                return Optional.empty();
            case FIXED_DELAY:
                return withinAttempts() ? Optional.of(settings.delay()) : Optional.empty();
            case EXPONENTIAL_BACKOFF: {
                if (!withinAttempts()) {
                    return Optional.empty();
                }
                double base = settings.initialBackoff().toMillis() * Math.pow(settings.multiplier(), inARow - 1);
                double capped = Math.min(base, settings.maxBackoff().toMillis());
                double jittered = capped * (1 - settings.jitter() + 2 * settings.jitter() * random.getAsDouble());
                return Optional.of(Duration.ofMillis(
                        Math.round(Math.min(jittered, settings.maxBackoff().toMillis()))));
            }
            case FAILURE_RATE: {
                recentFailures.addLast(nowMillis);
                while (!recentFailures.isEmpty()
                        && recentFailures.peekFirst()
                                <= nowMillis - settings.failureWindow().toMillis()) {
                    recentFailures.removeFirst();
                }
                return recentFailures.size() > settings.maxFailures()
                        ? Optional.empty()
                        : Optional.of(settings.delay());
            }
            default:
                throw new IllegalStateException("unknown restart strategy " + settings.kind());
        }
    }

    /** Whether any failure is restarted at all ({@code none}: never). */
    public boolean restarts() {
        return settings.kind() != Kind.NONE;
    }

    /** A checkpoint completed: the job is healthy again, so failures in a row start over. */
    public void onProgress() {
        inARow = 0;
    }

    private boolean withinAttempts() {
        return settings.attempts() <= 0 || inARow <= settings.attempts();
    }
}
