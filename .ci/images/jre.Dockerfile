# The run stage's base where no registry is reachable: Debian's JRE 17 (headless; no curl).
ARG BASE=localhost/debian:bookworm
FROM ${BASE}
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openjdk-17-jre-headless >/dev/null \
 && rm -rf /var/lib/apt/lists/*
