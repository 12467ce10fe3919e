package io.latelake.core.event;

import java.io.Serializable;

/**
 * A payload field parsed into its own bronze/silver column.
 *
 * @param name payload field name, also the column name
 * @param type the type it is parsed into
 * @param blankAsNull whether a blank JSON string (empty or whitespace only) reads as null; when
 *     false, a blank stays the string it is in a string field and is INVALID_FIELD in any other
 */
public record FieldSpec(String name, FieldType type, boolean blankAsNull) implements Serializable {
  /** A field that keeps blank strings as they are. */
  public FieldSpec(String name, FieldType type) {
    this(name, type, false);
  }
}
