package io.latelake.core.event;

/**
 * A payload field parsed into its own bronze/silver column.
 *
 * @param name payload field name, also the column name
 * @param type the type it is parsed into
 */
public record FieldSpec(String name, FieldType type) {}
