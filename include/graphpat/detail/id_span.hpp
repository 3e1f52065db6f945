// A read-only view of 32-bit slots as typed ids, so that interned tables can store children of
// different id kinds in one flat array without type punning.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>

namespace graphpat::detail {

template <class IdType>
class IdSpan {
 public:
  class iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = IdType;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = IdType;

    iterator() = default;
    explicit iterator(const std::uint32_t* slot) : slot_(slot) {}
    IdType operator*() const { return IdType(*slot_); }
    IdType operator[](difference_type n) const { return IdType(slot_[n]); }
    iterator& operator++() {
      ++slot_;
      return *this;
    }
    iterator operator++(int) {
      iterator old = *this;
      ++slot_;
      return old;
    }
    iterator& operator--() {
      --slot_;
      return *this;
    }
    iterator operator--(int) {
      iterator old = *this;
      --slot_;
      return old;
    }
    iterator& operator+=(difference_type n) {
      slot_ += n;
      return *this;
    }
    iterator& operator-=(difference_type n) {
      slot_ -= n;
      return *this;
    }
    friend iterator operator+(iterator it, difference_type n) { return it += n; }
    friend iterator operator+(difference_type n, iterator it) { return it += n; }
    friend iterator operator-(iterator it, difference_type n) { return it -= n; }
    friend difference_type operator-(iterator a, iterator b) { return a.slot_ - b.slot_; }
    friend auto operator<=>(iterator, iterator) = default;

   private:
    const std::uint32_t* slot_ = nullptr;
  };

  IdSpan() = default;
  explicit IdSpan(std::span<const std::uint32_t> slots) : slots_(slots) {}

  [[nodiscard]] std::size_t size() const { return slots_.size(); }
  [[nodiscard]] bool empty() const { return slots_.empty(); }
  IdType operator[](std::size_t i) const { return IdType(slots_[i]); }
  IdType front() const { return IdType(slots_.front()); }
  IdType back() const { return IdType(slots_.back()); }
  iterator begin() const { return iterator(slots_.data()); }
  iterator end() const { return iterator(slots_.data() + slots_.size()); }
  IdSpan subspan(std::size_t offset, std::size_t count) const {
    return IdSpan(slots_.subspan(offset, count));
  }

 private:
  std::span<const std::uint32_t> slots_;
};

}  // namespace graphpat::detail
