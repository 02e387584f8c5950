# Weir's container image: a Maven build stage, then a JRE 17 run stage with the runtime jar.
#
#   docker build -t weir .
#   docker run -v ./job.yaml:/etc/weir/job.yaml -e KAFKA_BOOTSTRAP=broker:9092 weir
#
# The base images are build arguments, so it builds where no registry is reachable by passing
# local images (.ci/container-test does: Debian's openjdk-17 and maven packages).
ARG BUILD_IMAGE=maven:3.9.9-eclipse-temurin-17
ARG RUN_IMAGE=eclipse-temurin:17.0.15_6-jre

FROM ${BUILD_IMAGE} AS build
WORKDIR /src
COPY pom.xml ./
COPY api/src/main api/src/main
COPY config/examples config/examples
COPY src/main src/main
# Tests and formatting are CI's business (.ci/run); this builds target/weir.jar and weir-dev.jar.
RUN mvn -B -ntp -q package -Dmaven.test.skip=true -Dspotless.check.skip=true \
 && ls -l target/weir.jar target/weir-dev.jar
# The classes a running job loads (Kafka clients, RocksDB, CEL, ...), listed from a short run of the
# example job on the embedded broker: the run stage archives them (AppCDS), which cuts the JVM's
# start — and so a restarted pod's recovery — by about a second. Should the run fail, the list is
# empty and the image starts as without it.
RUN (timeout 90 java -XX:DumpLoadedClassList=target/weir.classlist -jar target/weir-dev.jar dev --duration 10 \
      > target/classlist-run.log 2>&1 || tail -5 target/classlist-run.log) \
 && touch target/weir.classlist && wc -l target/weir.classlist

FROM ${RUN_IMAGE}
ARG WEIR_UID=10001
# A system user that owns only the state directory; the jar and the config are root's, read-only.
RUN groupadd --system --gid ${WEIR_UID} weir \
 && useradd --system --uid ${WEIR_UID} --gid weir --home-dir /var/lib/weir --no-create-home weir \
 && mkdir -p /var/lib/weir /etc/weir /opt/weir/plugins \
 && chown weir:weir /var/lib/weir \
 && printf '#!/bin/sh\nexec java -XX:SharedArchiveFile=/opt/weir/weir.jsa -Xshare:auto $JAVA_OPTS -jar /opt/weir/weir.jar "$@"\n' > /usr/local/bin/weir \
 && chmod 755 /usr/local/bin/weir
COPY --from=build /src/target/weir.jar /opt/weir/weir.jar
COPY --from=build /src/target/weir.classlist /opt/weir/weir.classlist
# The class-data archive for weir.jar (classes of the list that weir.jar lacks are skipped).
RUN java -Xshare:dump -XX:SharedClassListFile=/opt/weir/weir.classlist \
      -XX:SharedArchiveFile=/opt/weir/weir.jsa -cp /opt/weir/weir.jar > /dev/null 2>&1 \
 || echo "no class-data archive: the JVM starts without it"
# The default job: mount your own over it.
COPY config/examples/running-totals.yaml /etc/weir/job.yaml

# Heap as a share of the container's memory limit; RocksDB's block cache and write buffers live
# off the heap, hence not more. A JVM out of memory exits, and the orchestrator restarts it.
ENV JAVA_OPTS="-XX:MaxRAMPercentage=60 -XX:InitialRAMPercentage=20 -XX:+ExitOnOutOfMemoryError" \
    KAFKA_BOOTSTRAP=localhost:9092 \
    WEIR_STATE_DIR=/var/lib/weir/state \
    WEIR_HTTP_PORT=8080
# RocksDB state: rebuilt from the last checkpoint when lost, but kept it restores faster.
VOLUME /var/lib/weir
WORKDIR /opt/weir
USER weir
EXPOSE 8080
# WEIR_HTTP_PORT must match the job's http.port. The JRE image has no curl: a tiny Java probe.
HEALTHCHECK --interval=15s --timeout=10s --start-period=60s --retries=3 \
  CMD java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx32m -cp /opt/weir/weir.jar io.weir.tools.HealthProbe "http://127.0.0.1:${WEIR_HTTP_PORT}/health/live"
# Arguments after the image name are added, e.g. --set processing.threads=4.
ENTRYPOINT ["weir", "run", "--config", "/etc/weir/job.yaml"]
