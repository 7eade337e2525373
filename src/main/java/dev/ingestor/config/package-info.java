/**
 * Configuration: {@code ingestor.*} itself ({@link dev.ingestor.config.IngestorProperties}: folders, instance
 * name, {@link dev.ingestor.config.SupplierProperties suppliers}) and the settings several stages read (Kafka,
 * retention, database time limits, HTTP limits, the redelivery policies), each default declared once in its
 * settings class; a stage's own settings are a class in that stage's package. Also the instance name, the former
 * names of renamed properties ({@link dev.ingestor.config.RenamedProperties}), where routes/ is read from, when
 * the routes the stages make from its templates join the context ({@link dev.ingestor.config.RoutesFromTemplates}),
 * and the supplier field names Spring Boot would bind as other names, refused at start
 * ({@link dev.ingestor.config.SupplierFieldNames}).
 * The bottom of the house: it uses no other package of Ingestor.
 */
package dev.ingestor.config;
