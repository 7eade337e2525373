package dev.ingestor.source.http;

import java.time.LocalDate;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * The body of an item batch as the OpenAPI document describes it (routes/source-http.camel.yaml names this class).
 * Only the document uses it: the batch itself is read as a stream by {@link ItemBatchReader}, which keeps the
 * limits, so no body is ever bound to this type.
 */
@Schema(name = "ItemBatch", description = "Records to apply at once, under one Idempotency-Key")
public record ItemBatchBody(
        @ArraySchema(minItems = 1, arraySchema = @Schema(requiredMode = Schema.RequiredMode.REQUIRED), schema = @Schema(implementation = DeliveryRecord.class)) List<DeliveryRecord> items) {

    /** One record of a batch: the fields of a delivery advice line; any other field is kept as an attribute. */
    @Schema(name = "DeliveryRecord", additionalProperties = Schema.AdditionalPropertiesValue.TRUE,
            description = "A delivery advice line; fields besides these are kept as attributes. A tombstone"
                    + " (deleted: true) needs only source_id and, optionally, source_version")
    public record DeliveryRecord(
            @JsonProperty("source_id") @Schema(requiredMode = Schema.RequiredMode.REQUIRED,
                    description = "The item's id at the supplier", example = "PO-1001-1") String sourceId,
            @JsonProperty("source_version") @Schema(description = "Whole number; a higher one updates the item",
                    example = "3") Long sourceVersion,
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED, example = "SKU-42") String sku,
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED, description = "A whole number greater than 0",
                    example = "12") long quantity,
            @JsonProperty("delivery_date") @Schema(requiredMode = Schema.RequiredMode.REQUIRED,
                    example = "2026-12-01") LocalDate deliveryDate,
            @Schema(description = "true retires the item (outcome DELETED); a later higher version revives it",
                    example = "false") Boolean deleted) {
    }
}
