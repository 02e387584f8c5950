# The Maven build stage's base where no registry is reachable: Debian's JDK 17 and Maven 3.8.7.
ARG BASE=localhost/debian:bookworm
FROM ${BASE}
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openjdk-17-jdk-headless maven >/dev/null \
 && rm -rf /var/lib/apt/lists/*
