package dev.ingestor.source.http;

import java.time.LocalDate;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The body of an item batch as the OpenAPI document describes it (routes/source-http.camel.yaml names this class).
 * Only the document uses it: the batch itself is read as a stream by {@link ItemBatchReader}, which keeps the
 * limits, so no body is ever bound to this type.
 */
public record ItemBatchBody(List<DeliveryRecord> items) {

    /** One record of a batch: the fields of a delivery advice line; any other field is kept as an attribute. */
    public record DeliveryRecord(@JsonProperty("source_id") String sourceId,
            @JsonProperty("source_version") Long sourceVersion, String sku, long quantity,
            @JsonProperty("delivery_date") LocalDate deliveryDate, Boolean deleted) {
    }
}
