import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Min, ValidateNested } from 'class-validator';

/** The fields of a storage notification record the uploads service relies on. */
export class StoredObjectNotice {
  @IsString()
  bucket!: string;

  /** Already URL-decoded (objectKeyOf). */
  @IsString()
  key!: string;

  @IsOptional()
  @IsInt()
  @Min(0)
  size?: number;
}

export class StorageNotificationDto {
  @ValidateNested({ each: true })
  @Type(() => StoredObjectNotice)
  objects!: StoredObjectNotice[];
}
