// The cached rule lookup answers exactly what class-validator's own lookup answers (own and inherited rules,
// per group), and asks class-validator once per class and options.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { getMetadataStorage, IsInt, IsString, MaxLength, MetadataStorage, Min, validate, ValidateNested } from 'class-validator';
import { cacheValidationMetadata } from './validation-metadata-cache';

class BaseDto {
  @IsString()
  name!: string;
}

class ChildDto {
  @IsInt()
  @Min(1, { groups: ['strict'] })
  count!: number;
}

class DerivedDto extends BaseDto {
  @MaxLength(3)
  code!: string;

  @ValidateNested({ always: true })
  @Type(() => ChildDto)
  child!: ChildDto;
}

const sample = (): DerivedDto => Object.assign(new DerivedDto(), { name: 7, code: 'toolong', child: Object.assign(new ChildDto(), { count: 0 }) });
const constraints = async (groups?: string[]) => JSON.stringify((await validate(sample(), groups ? { groups } : {})).map((error) => [error.property, error.constraints, error.children?.map((child) => child.constraints)]));

describe('cacheValidationMetadata', () => {
  it('gives the same validation errors as the uncached lookup and asks it once per class and options', async () => {
    const storage: MetadataStorage = getMetadataStorage();
    const before = [await constraints(), await constraints(['strict'])];
    const original = jest.spyOn(storage, 'getTargetValidationMetadatas');
    cacheValidationMetadata(storage);
    cacheValidationMetadata(storage);
    const after = [await constraints(), await constraints(['strict']), await constraints(), await constraints(['strict'])];
    expect(after).toEqual([...before, ...before]);
    expect(before[0]).toContain('isString');
    expect(before[0]).toContain('maxLength');
    expect(before[1]).toContain('min');
    expect(before[1]).not.toContain('isString');
    // Two classes (DerivedDto, ChildDto) × two option sets, whatever the number of validations.
    expect(original).toHaveBeenCalledTimes(4);
  });
});
