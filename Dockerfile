# Build and run Ingestor. Used by docker-compose.yml; the routes folder is copied beside the jar so an
# engineer can mount their own over it.
FROM eclipse-temurin:17-jdk AS build
WORKDIR /src
COPY .mvn .mvn
COPY mvnw pom.xml ./
RUN ./mvnw -q -B dependency:go-offline
COPY src src
COPY routes routes
RUN ./mvnw -q -B package -DskipTests

FROM eclipse-temurin:17-jre
WORKDIR /app
# the app runs as an unprivileged user of a fixed uid (volumes and bind mounts can be given to it by number);
# it owns only what it writes: its data and the inbox. The jar and the routes stay root's, read-only to it.
RUN groupadd --system --gid 10001 ingestor \
 && useradd --system --uid 10001 --gid 10001 --home-dir /app --no-create-home --shell /usr/sbin/nologin ingestor \
 && mkdir -p /app/inbox /app/data \
 && chown ingestor:ingestor /app/inbox /app/data \
 && chmod 0750 /app/inbox /app/data
COPY --from=build /src/target/ingestor.jar /app/ingestor.jar
COPY routes /app/routes
# the app refuses a routes folder others than its owner may write to (a checkout made with umask 002 has them so)
RUN chmod -R go-w /app/routes
USER 10001:10001
EXPOSE 8080
# out of memory, the JVM exits and compose starts it again (restart: in docker-compose.yml): what a killed instance
# left, the next start heals, where a JVM that ran out of memory may go on with some of its threads ended
ENTRYPOINT ["java", "-XX:+ExitOnOutOfMemoryError", "-jar", "/app/ingestor.jar"]
