# The local stand-in for the topology's registry bases: the Debian base the proofs build,
# with PostgreSQL, nginx, curl and the PostgreSQL client from Debian's packages, installed at
# image build time on the host (never during a trial). One image serves as db's, proxy's and
# main's extra base.
ARG BASE=harness-local/python:3.12-slim
FROM ${BASE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql nginx-light curl procps \
 && rm -rf /var/lib/apt/lists/*
