package io.weir.config;

import java.util.Objects;

/**
 * The whole configuration of one Weir job, built once at start by {@link ConfigLoader} and
 * immutable afterwards. {@code application} names the job: it is the consumer group id, the
 * prefix of transactional ids and of the topics Weir creates; {@code instanceId} tells this
 * process apart from the job's other instances (the host name unless configured).
 */
public record WeirConfig(
        String application,
        String instanceId,
        KafkaConfig kafka,
        ProcessingConfig processing,
        DeadLetterConfig deadLetter,
        HttpConfig http,
        Pipeline pipeline) {

    public WeirConfig {
        Objects.requireNonNull(application, "application");
        Objects.requireNonNull(instanceId, "instanceId");
        Objects.requireNonNull(kafka, "kafka");
        Objects.requireNonNull(processing, "processing");
        Objects.requireNonNull(deadLetter, "deadLetter");
        Objects.requireNonNull(http, "http");
        Objects.requireNonNull(pipeline, "pipeline");
        if (!ConfigShape.NAME.matcher(application).matches() || application.length() > ConfigShape.MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("application must be at most "
                    + ConfigShape.MAX_NAME_LENGTH + " characters of a-z, A-Z, 0-9, '.', '_' and '-', was "
                    + application);
        }
        if (!ConfigShape.NAME.matcher(instanceId).matches()) {
            throw new IllegalArgumentException(
                    "instance-id must use only a-z, A-Z, 0-9, '.', '_' and '-', was " + instanceId);
        }
    }
}
