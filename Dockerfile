# Multi-stage build: cgo is needed for the SQLite driver.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=1 go build -trimpath -ldflags="-s -w" -o /out/concierge ./cmd/concierge && mkdir -p /out/data

# Runtime: glibc for the cgo binary, no shell tools needed, non-root user.
FROM gcr.io/distroless/base-debian12:nonroot
COPY --from=build /out/concierge /usr/local/bin/concierge
# The database directory belongs to the nonroot user (uid 65532).
COPY --from=build --chown=65532:65532 /out/data /data
WORKDIR /data
VOLUME ["/data"]
# No demo accounts in an image: create accounts with "concierge user add".
ENV CONCIERGE_ADDR=:8080 CONCIERGE_DB=/data/concierge.db CONCIERGE_DEMO=false
EXPOSE 8080
USER nonroot:nonroot
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s CMD ["/usr/local/bin/concierge", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/concierge"]
CMD ["serve"]
