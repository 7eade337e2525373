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
COPY --from=build /src/target/ingestor.jar /app/ingestor.jar
COPY routes /app/routes
RUN mkdir -p /app/inbox /app/data
EXPOSE 8080
ENTRYPOINT ["java", "-jar", "/app/ingestor.jar"]
